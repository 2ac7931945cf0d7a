"""One rank of a distributed conversion, started by torchrun:
mindrecord.convert makes the torch.distributed process group from
torchrun's variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT).
usage: dist_convert.py INPUT OUTPUT SHARDS REPORT_DIR"""
import json
import os
import sys


def main():
    import mindrecord
    src, out, shards, report_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    try:
        rep = mindrecord.convert("imagefolder", src, out, shards=shards, header_size=65536, page_size=131072,
                                 workers=1)
    except Exception as e:  # the test reads what each rank was told
        with open(os.path.join(report_dir, "rank%s.err" % os.environ["RANK"]), "w") as f:
            f.write("%s: %s" % (type(e).__name__, e))
        sys.exit(1)
    with open(os.path.join(report_dir, "rank%s.json" % os.environ["RANK"]), "w") as f:
        json.dump(rep, f)


if __name__ == "__main__":
    main()
