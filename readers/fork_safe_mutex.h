// A process-wide mutex held across fork(): pthread_atfork locks it before
// the fork and unlocks it in both processes, so a child (a DataLoader worker
// forked while pipeline threads open readers) never starts with it locked
// by a thread that does not exist there. One mutex per Tag type; never
// destroyed, so it is safe to use at exit.
#pragma once

#include <pthread.h>

#include <mutex>

namespace mindrecord {

template <typename Tag>
std::mutex& ForkSafeMutex() {
  static std::mutex* mu = [] {
    auto* m = new std::mutex();
    ::pthread_atfork([] { ForkSafeMutex<Tag>().lock(); }, [] { ForkSafeMutex<Tag>().unlock(); },
                     [] { ForkSafeMutex<Tag>().unlock(); });
    return m;
  }();
  return *mu;
}

}  // namespace mindrecord
