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
PlanResult PlanImageNet(const std::string& input, ConvertContext& ctx);
PlanResult PlanCifar10(const std::string& input, ConvertContext& ctx);
PlanResult PlanCifar100(const std::string& input, ConvertContext& ctx);
PlanResult PlanMnist(const std::string& input, ConvertContext& ctx);
PlanResult PlanVoc(const std::string& input, ConvertContext& ctx);
PlanResult PlanCoco(const std::string& input, ConvertContext& ctx);
PlanResult PlanTfRecord(const std::string& input, ConvertContext& ctx);
PlanResult PlanCsv(const std::string& input, ConvertContext& ctx);

// "a/b/c" -> a schema-safe field name: characters outside [0-9A-Za-z_] -> '_'.
std::string SanitizeFieldName(const std::string& name);

// Parses "name:type[:shape],..." (see ConvertOptions::fields). The names are
// the source's names, unsanitized.
struct FieldSpec {
  std::string source_name;
  Field field;
};
Result<std::vector<FieldSpec>> ParseFieldSpecs(const std::string& text);

}  // namespace mindrecord::convert
