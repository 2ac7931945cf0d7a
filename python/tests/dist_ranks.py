"""Rank bodies for the distributed tests: importable by the processes that
torch.multiprocessing.spawn starts (a test module would be re-collected)."""
import json
import os


def read_rank(rank, world, path, init_file, out_dir, workers):
    import torch
    import torch.distributed as dist
    from mindrecord.torch import MindRecordDataset
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world)
    try:
        ds = MindRecordDataset(path, columns=["id"], seed=4, batch_size=5)
        loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers)
        batches = [b["id"].tolist() for b in loader]
        ids = [i for b in batches for i in b]
        with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as f:
            json.dump({"ids": ids, "batches": len(batches), "len": len(loader), "rows": ds._rank_rows(),
                       "start_method": torch.multiprocessing.get_start_method()}, f)
    finally:
        dist.destroy_process_group()
