// Spare column vectors for rows: each row a worker reads gets its tensors in
// a std::vector, and the batch it goes into is assembled by the same worker,
// which then drops the row. Handing the emptied vectors back to the reading
// thread saves an allocation and a free per row (on small rows the
// allocator's slow paths: 256 rows a batch outrun its per-thread cache).
// Thread safety: per thread (each thread has its own spares).
#pragma once

#include <vector>

#include "pipeline/tensor.h"

namespace mindrecord {

// An empty vector, with capacity when a spare was given back on this thread.
std::vector<Tensor> TakeRowVector();
// Keeps `v`'s storage (emptied) for the next TakeRowVector on this thread,
// up to 1 MiB of spares per thread; beyond that `v` is freed.
void GiveRowVector(std::vector<Tensor>&& v);

}  // namespace mindrecord
