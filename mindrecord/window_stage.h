// Groups a file's buffered writes into whole 2 MiB-aligned windows, each
// handed to the kernel in one write call. A write call that covers a whole
// aligned 2 MiB of a file lets the page cache hold it as one 2 MiB folio
// (Linux with large folios, e.g. ext4 and XFS), which every later mapping of
// the file maps with one fault and one TLB entry; the writer's natural calls
// (a batch of rows at a time, at any offset, split at IOV_MAX pieces) leave
// folios of 512 KiB and less, which are mapped 4 KiB at a time. Reading a
// dataset right after writing it (convert, then train) is then as fast as
// reading it after it was dropped from the cache and read back in.
//
// Window by window: a whole window in the write goes out at once (gathered
// from the caller's pieces when they fit in one call, else copied into a
// window buffer first); the start of a window is copied into a window buffer
// that the writes continuing it fill, and goes out when full; bytes in the
// middle of a window that no buffer holds go out as they come. Two window
// buffers per file follow two streams of appends (the writer's blob page
// and raw page). The buffers of all files of the process together stay under
// kBudgetBytes; past it, writes go out as they come.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "mindrecord/status.h"

namespace mindrecord {

// Thread safety: not thread-safe; calls must not overlap (as WritableFile's).
class WindowStage {
 public:
  static constexpr uint64_t kWindow = uint64_t{2} << 20;
  static constexpr uint64_t kBudgetBytes = uint64_t{64} << 20;
  // Writes `n` iovecs back to back at `offset` (one call where n <= IOV_MAX).
  using Sink = std::function<Status(uint64_t offset, const iovec* iov, size_t n)>;

  explicit WindowStage(Sink sink);
  ~WindowStage();  // drops what is held: Flush() first
  WindowStage(const WindowStage&) = delete;
  WindowStage& operator=(const WindowStage&) = delete;

  // `pieces` back to back at `offset`. Bytes held in a window buffer reach
  // the sink later (when the window fills, or at Flush).
  Status Write(uint64_t offset, const std::vector<std::string_view>& pieces);
  // Hands everything held to the sink.
  Status Flush();
  // Bytes held, not yet handed to the sink.
  uint64_t held_bytes() const;

 private:
  struct Slot {
    std::unique_ptr<char[]> buf;
    uint64_t start = 0;  // file offset of buf[0]: a window start
    uint64_t len = 0;    // bytes held; 0: free
    uint64_t used = 0;   // when it was last written (for eviction)
  };
  class Cursor;

  Slot* Continuing(uint64_t pos);
  // A free slot, the older one's window flushed when both hold one; null
  // when the budget allows no buffer.
  Status TakeSlot(Slot** out);
  Status FlushSlot(Slot* s);
  Status FlushOverlapping(uint64_t begin, uint64_t end);

  Sink sink_;
  Slot slots_[2];
  uint64_t clock_ = 0;
  std::vector<iovec> iov_;
};

}  // namespace mindrecord
