// The public API of the mindrecord library in one include:
//   #include "mindrecord/mindrecord.h"
// with the installed package (find_package(mindrecord) or pkg-config
// mindrecord) or from the source tree. Every header listed here is installed
// under <prefix>/include/mindrecord/; the rest of the tree is internal.
//
// - Status/Result, Value/Row/Schema, header and on-disk constants: the format core
// - ShardWriter (write, append, commit) and ShardReader (random access, scans)
// - Verify and RebuildIndex: integrity tools; Convert: source layouts -> MindRecord
// - Plan + Pipeline: samplers, worker threads, tensor ops, batching
// Thread safety is documented on each class in its own header.
#pragma once

#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/encryption.h"
#include "mindrecord/file.h"
#include "mindrecord/header.h"
#include "mindrecord/row_view.h"
#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"
#include "mindrecord/version.h"
#include "pipeline/batch.h"
#include "pipeline/nodes/batch_steps.h"
#include "pipeline/op_registry.h"
#include "pipeline/ops/fuse.h"
#include "pipeline/ops/op.h"
#include "pipeline/padded.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "pipeline/sampler.h"
#include "pipeline/shuffle_mode.h"
#include "pipeline/stats.h"
#include "pipeline/tensor.h"
#include "readers/shard_reader.h"
#include "readers/verifier.h"
#include "writers/convert/converter.h"
#include "writers/index_rebuild.h"
#include "writers/shard_writer.h"
