"""Rank bodies for the distributed tests: importable by the processes that
torch.multiprocessing.spawn starts (a test module would be re-collected),
and a script for torchrun."""
import json
import os


def _read(rank, path, out_dir, workers):
    """Reads the rank's rows through a DataLoader; writes what it saw."""
    import torch
    from mindrecord.torch import MindRecordDataset
    ds = MindRecordDataset(path, columns=["id"], seed=4, batch_size=5)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers)
    batches = [b["id"].tolist() for b in loader]
    ids = [i for b in batches for i in b]
    with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as f:
        json.dump({"ids": ids, "batches": len(batches), "len": len(loader), "rows": ds._rank_rows(),
                   "start_method": torch.multiprocessing.get_start_method()}, f)


def read_rank(rank, world, path, init_file, out_dir, workers):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world)
    try:
        _read(rank, path, out_dir, workers)
    finally:
        dist.destroy_process_group()


def main():
    """Under torchrun: RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT come from
    the launcher and the process group is made the env:// way.
    usage: dist_ranks.py DATASET OUT_DIR WORKERS"""
    import sys
    import torch.distributed as dist
    path, out_dir, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    dist.init_process_group("gloo")
    try:
        _read(dist.get_rank(), path, out_dir, workers)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
