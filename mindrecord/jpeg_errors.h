// libjpeg's error handling for bytes we did not write: its default
// error_exit calls exit() and its messages go to stderr. A fatal error
// longjmps back to the caller's setjmp(errors.jump) instead, and a
// corrupt-data warning is recorded, not printed.
//
//   jpeg_decompress_struct ci;
//   JpegErrors err;
//   UseJpegErrors(&ci, &err);
//   if (setjmp(err.jump)) { jpeg_destroy_decompress(&ci); return false; }
//   jpeg_create_decompress(&ci);  ...
//
// Between setjmp and longjmp the caller holds plain C types only (no
// destructors are run). Thread safety: one JpegErrors per decompressor.
#pragma once

#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE

#include <jpeglib.h>

namespace mindrecord {

struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  bool warned = false;  // libjpeg reported corrupt data and went on
};

inline void UseJpegErrors(jpeg_decompress_struct* ci, JpegErrors* err) {
  ci->err = jpeg_std_error(&err->mgr);
  err->mgr.error_exit = [](j_common_ptr c) { std::longjmp(reinterpret_cast<JpegErrors*>(c->err)->jump, 1); };
  err->mgr.emit_message = [](j_common_ptr c, int level) {
    if (level < 0) reinterpret_cast<JpegErrors*>(c->err)->warned = true;
  };
}

}  // namespace mindrecord
