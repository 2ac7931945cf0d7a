// The source planners: each turns one source layout into SplitPlans for the
// convert engine, after checking what can be checked up front (file
// presence, headers, counts). Internal to writers/convert.
#pragma once

#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "writers/convert/convert_context.h"
#include "writers/convert/convert_engine.h"

namespace mindrecord::convert {

using PlanResult = Result<std::vector<SplitPlan>>;

PlanResult PlanImageFolder(const std::string& input, ConvertContext& ctx);
// The extensions PlanImageFolder lists (any case), space-separated: ".jpg .jpeg ...".
std::string ImageFolderExtensions();
PlanResult PlanImageNet(const std::string& input, ConvertContext& ctx);
PlanResult PlanCifar10(const std::string& input, ConvertContext& ctx);
PlanResult PlanCifar100(const std::string& input, ConvertContext& ctx);
PlanResult PlanMnist(const std::string& input, ConvertContext& ctx);
// MNIST-layout idx files of other names: per split, the files
// PREFIX-images-idx3-ubyte[.gz] and PREFIX-labels-idx1-ubyte[.gz]
// (EMNIST: {"train", "emnist-letters-train"}, {"test", "emnist-letters-test"}).
PlanResult PlanIdxFiles(const std::string& input, ConvertContext& ctx,
                        const std::vector<std::pair<std::string, std::string>>& split_prefixes);
PlanResult PlanVoc(const std::string& input, ConvertContext& ctx);
PlanResult PlanCoco(const std::string& input, ConvertContext& ctx);
PlanResult PlanTfRecord(const std::string& input, ConvertContext& ctx);
PlanResult PlanCsv(const std::string& input, ConvertContext& ctx);

// "a/b/c" -> a schema-safe field name: characters outside [0-9A-Za-z_] -> '_'.
std::string SanitizeFieldName(const std::string& name);

// Parses "name:type[:shape],..." (see ConvertOptions::fields). The names are
// the source's names, unsanitized. "bytes:[-1]" / "string:[-1]" ask for a list
// of byte strings (tfrecord only), stored as described at ListLengthsField.
struct FieldSpec {
  std::string source_name;
  Field field;          // for a list: the concatenated values, no shape
  bool byte_list = false;
};
Result<std::vector<FieldSpec>> ParseFieldSpecs(const std::string& text);

// A list of byte strings is stored as two fields: `name` (bytes / string)
// holds the values concatenated, and `name_lengths` (int64 [-1]) the length of
// each value, in order (empty list: "" and []). Returns `name_lengths`.
std::string ListLengthsField(const std::string& name);

// The schema fields of `specs`, a list's lengths field after its values.
std::vector<Field> SpecFields(const std::vector<FieldSpec>& specs);

}  // namespace mindrecord::convert
