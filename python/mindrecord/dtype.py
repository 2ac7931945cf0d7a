"""MindSpore's dtype names (mindspore.common.dtype, usually imported as
mstype) as the numpy dtypes this package takes and returns, so that code
naming them runs with only the import changed:

    import mindspore.common.dtype as mstype   ->   from mindrecord import dtype as mstype

TypeCast(mstype.int32), GeneratorDataset(column_types=[mstype.float32]),
Schema.add_column(..., de_type=mstype.int64) and comparisons with
output_types() (numpy dtypes here) then work as in MindSpore. Types the
pipeline has no tensors for (uint16 to uint64, float16, complex) are named
too: an op or dataset given one fails where it is used, naming the op and
the type (MindSpore's bfloat16 has no numpy dtype and is not here)."""
import numpy as np

__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
           "float64", "half", "single", "double", "complex64", "complex128", "string"]

bool_ = np.dtype(np.bool_)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
float16 = half = np.dtype(np.float16)
float32 = single = np.dtype(np.float32)
float64 = double = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)
string = np.dtype(np.str_)
