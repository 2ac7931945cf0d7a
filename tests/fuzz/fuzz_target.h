// Declares a fuzz target's entry point. Built as a fuzzer (MINDRECORD_FUZZER
// defined) it is libFuzzer's LLVMFuzzerTestOneInput; otherwise it registers
// the function by name, so a GoogleTest can replay the regression inputs and
// seed mutations through the same code in the normal build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace mindrecord::fuzz {

using TargetFn = int (*)(const uint8_t* data, size_t size);

inline std::map<std::string, TargetFn>& Targets() {
  static std::map<std::string, TargetFn> targets;
  return targets;
}

struct RegisterTarget {
  RegisterTarget(const char* name, TargetFn fn) { Targets()[name] = fn; }
};

}  // namespace mindrecord::fuzz

#ifdef MINDRECORD_FUZZER
#define MINDRECORD_FUZZ_TARGET(name)                                            \
  static int FuzzTarget_##name(const uint8_t* data, size_t size);              \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {   \
    return FuzzTarget_##name(data, size);                                      \
  }                                                                            \
  static int FuzzTarget_##name(const uint8_t* data, size_t size)
#else
#define MINDRECORD_FUZZ_TARGET(name)                                            \
  static int FuzzTarget_##name(const uint8_t* data, size_t size);              \
  static const ::mindrecord::fuzz::RegisterTarget kRegister_##name(#name, &FuzzTarget_##name); \
  static int FuzzTarget_##name(const uint8_t* data, size_t size)
#endif
