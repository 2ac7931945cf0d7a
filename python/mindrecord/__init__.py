"""mindrecord: read and write MindSpore MindRecord datasets.

MindSpore-style API (FileWriter, FileReader, MindPage, the *ToMR converters,
set_enc_key / set_hash_mode), a training-loop dataset (MindDataset) over the
C++ pipeline, and a PyTorch adapter (mindrecord.torch.MindRecordDataset,
imported on demand). Code written for mindspore.mindrecord and
mindspore.dataset.MindDataset runs with only the import changed.

Errors are MindSpore's exception classes (ParamValueError, MRM*Error, ...;
mindrecord.exceptions), each also the built-in our API documents: bad
arguments and rows raise ValueError; a missing file FileNotFoundError;
existing output FileExistsError; unreadable or corrupt files OSError
(CorruptionError for corruption); unsupported versions UnsupportedError (a
ValueError). Errors of the C++ engine are also RuntimeError, as MindSpore's.
"""
from mindrecord._core import __version__
from mindrecord.exceptions import *  # noqa: F401,F403  (MindSpore's names)
from mindrecord.exceptions import __all__ as _exception_names
from mindrecord.filewriter import FileWriter
from mindrecord.filereader import FileReader
from mindrecord.mindpage import MindPage
from mindrecord.recover import recover
from mindrecord.converters import (Cifar10ToMR, Cifar100ToMR, CocoToMR, COCOToMR, CsvToMR, ImageFolderToMR,
                                   ImageNetToMR, MnistToMR, TFRecordToMR, VOCToMR, convert)
# mindrecord.zip is MindSpore's dataset.zip; left out of __all__ so that a
# star import does not hide the built-in.
from mindrecord.dataset import BatchInfo, MindDataset, mix, zip  # noqa: A004
from mindrecord.audio_datasets import (CMUArcticDataset, GTZANDataset, LibriTTSDataset, LJSpeechDataset,
                                       SpeechCommandsDataset, TedliumDataset, YesNoDataset)
from mindrecord.raw_datasets import (Caltech256Dataset, CelebADataset, Cifar10Dataset, Cifar100Dataset, CocoDataset,
                                     EMnistDataset, FashionMnistDataset, Food101Dataset, ImageFolderDataset,
                                     KMnistDataset, MnistDataset, OmniglotDataset, Places365Dataset, VOCDataset)
from mindrecord.catalog_datasets import (Caltech101Dataset, CityscapesDataset, DIV2KDataset, FakeImageDataset,
                                         FlickrDataset, Flowers102Dataset, IWSLT2016Dataset, IWSLT2017Dataset,
                                         KITTIDataset, LFWDataset, LSUNDataset, ManifestDataset, Multi30kDataset,
                                         PhotoTourDataset, QMnistDataset, RenderedSST2Dataset, SBDataset, SBUDataset,
                                         SemeionDataset, SQuADDataset, STL10Dataset, SVHNDataset, USPSDataset,
                                         WIDERFaceDataset)
from mindrecord.generator_dataset import GeneratorDataset, NumpySlicesDataset, PaddedDataset
from mindrecord.text_file_dataset import TextFileDataset
from mindrecord.csv_dataset import CSVDataset
from mindrecord.text_datasets import (AGNewsDataset, AmazonReviewDataset, CLUEDataset, CoNLL2000Dataset,
                                      DBpediaDataset, EnWik9Dataset, IMDBDataset, PennTreebankDataset, SogouNewsDataset,
                                      UDPOSDataset, WikiTextDataset, YahooAnswersDataset, YelpReviewDataset)
from mindrecord.tfrecord_dataset import TFRecordDataset
from mindrecord.schema import Schema
from mindrecord.callback import DSCallback
from mindrecord.cache import DatasetCache
from mindrecord import config
from mindrecord.samplers import (DistributedSampler, PKSampler, RandomSampler, SequentialSampler, Shuffle,
                                 SubsetRandomSampler, SubsetSampler, WeightedRandomSampler)
from mindrecord.iterators import Tensor
from mindrecord.config import set_dec_mode, set_enc_key, set_enc_mode, set_hash_mode
from mindrecord import vision
from mindrecord import transforms
from mindrecord import text
from mindrecord import audio
from mindrecord import dtype

# MindSpore's MSRStatus values (shardutils.SUCCESS / FAILED).
SUCCESS = 0
FAILED = 1

__all__ = [
    "FileWriter", "FileReader", "MindPage", "MnistToMR", "Cifar10ToMR",
    "Cifar100ToMR", "ImageNetToMR", "CsvToMR", "TFRecordToMR", "VOCToMR", "CocoToMR", "COCOToMR",
    "ImageFolderToMR", "convert", "MindDataset", "Shuffle", "SequentialSampler", "RandomSampler",
    "DistributedSampler", "SubsetSampler", "SubsetRandomSampler", "PKSampler", "WeightedRandomSampler", "Tensor", "vision", "transforms",
    "text", "audio",
    "dtype",
    "set_enc_key", "set_enc_mode", "set_dec_mode", "set_hash_mode", "recover", "SUCCESS", "FAILED", "__version__",
    "BatchInfo", "DSCallback", "mix", "config", "DatasetCache",
    "ImageFolderDataset", "Caltech256Dataset", "CelebADataset", "Cifar10Dataset", "Cifar100Dataset", "MnistDataset",
    "EMnistDataset", "FashionMnistDataset", "KMnistDataset", "OmniglotDataset", "Places365Dataset", "Food101Dataset",
    "VOCDataset", "CocoDataset", "LFWDataset", "LSUNDataset", "DIV2KDataset", "FlickrDataset", "KITTIDataset",
    "WIDERFaceDataset", "ManifestDataset", "SBUDataset", "RenderedSST2Dataset", "Multi30kDataset", "QMnistDataset",
    "STL10Dataset", "USPSDataset", "SemeionDataset", "SQuADDataset", "IWSLT2016Dataset", "IWSLT2017Dataset",
    "CityscapesDataset", "FakeImageDataset", "Flowers102Dataset", "Caltech101Dataset",
    "SVHNDataset", "SBDataset", "PhotoTourDataset",
    "YesNoDataset", "SpeechCommandsDataset", "LJSpeechDataset", "CMUArcticDataset", "GTZANDataset", "LibriTTSDataset",
    "TedliumDataset",
    "GeneratorDataset", "NumpySlicesDataset", "PaddedDataset", "TextFileDataset", "CSVDataset", "TFRecordDataset",
    "AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "YahooAnswersDataset", "YelpReviewDataset",
    "SogouNewsDataset", "PennTreebankDataset", "WikiTextDataset", "EnWik9Dataset", "IMDBDataset",
    "CoNLL2000Dataset", "UDPOSDataset", "CLUEDataset",
    "Schema",
] + list(_exception_names)
