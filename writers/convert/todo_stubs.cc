#include "writers/convert/sources.h"
namespace mindrecord::convert {
PlanResult PlanVoc(const std::string&, ConvertContext&) { return Status::NotSupported("todo"); }
PlanResult PlanCoco(const std::string&, ConvertContext&) { return Status::NotSupported("todo"); }
PlanResult PlanTfRecord(const std::string&, ConvertContext&) { return Status::NotSupported("todo"); }
PlanResult PlanCsv(const std::string&, ConvertContext&) { return Status::NotSupported("todo"); }
}
