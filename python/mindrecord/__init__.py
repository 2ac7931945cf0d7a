"""mindrecord: read and write MindSpore MindRecord datasets.

MindSpore-style API (FileWriter, FileReader, MindPage, the *ToMR converters),
a training-loop dataset (MindDataset) over the C++ pipeline, and a PyTorch
adapter (mindrecord.torch.MindRecordDataset, imported on demand).

Errors: bad arguments and rows raise ValueError; a missing file
FileNotFoundError; existing output FileExistsError; unreadable or corrupt
files OSError (CorruptionError for corruption); unsupported versions
UnsupportedError (a ValueError).
"""
from mindrecord._core import CorruptionError, UnsupportedError, __version__
from mindrecord.filewriter import FileWriter
from mindrecord.filereader import FileReader
from mindrecord.mindpage import MindPage
from mindrecord.recover import recover
from mindrecord.converters import (Cifar10ToMR, Cifar100ToMR, CocoToMR, COCOToMR, CsvToMR, ImageFolderToMR,
                                   ImageNetToMR, MnistToMR, TFRecordToMR, VOCToMR, convert)
from mindrecord.dataset import (DistributedSampler, MindDataset, PKSampler, RandomSampler, SequentialSampler,
                                Shuffle, SubsetRandomSampler, SubsetSampler, Tensor, WeightedRandomSampler)
from mindrecord import vision

SUCCESS = 0

__all__ = [
    "CorruptionError", "UnsupportedError", "FileWriter", "FileReader", "MindPage", "MnistToMR", "Cifar10ToMR",
    "Cifar100ToMR", "ImageNetToMR", "CsvToMR", "TFRecordToMR", "VOCToMR", "CocoToMR", "COCOToMR",
    "ImageFolderToMR", "convert", "MindDataset", "Shuffle", "SequentialSampler", "RandomSampler",
    "DistributedSampler", "SubsetSampler", "SubsetRandomSampler", "PKSampler", "WeightedRandomSampler", "Tensor", "vision",
    "recover", "SUCCESS", "__version__",
]
