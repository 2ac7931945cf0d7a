// Schemas (header "schema" entries) of the compat files, plus one with int64
// and 2-D arrays, shared by the fuzz targets that need a schema.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/schema.h"

namespace mindrecord::fuzz {

inline constexpr const char* kSchemas[] = {
    // imagenet (compat, v2.0): one bytes blob field.
    R"({"blob_fields":["data"],"desc":"imagenet_schema","schema":{"data":{"type":"bytes"},"file_name":{"type":"string"},"label":{"type":"int64"}}})",
    // graph (compat, v3.0): eight array blob fields, packed int32 arrays.
    R"({"blob_fields":["edge_feature_1","edge_feature_2","edge_feature_index","node_feature_1","node_feature_2","node_feature_3","node_feature_4","node_feature_index"],"desc":"mindrecord_graph_schema","schema":{"attribute":{"type":"string"},"edge_feature_1":{"shape":[-1],"type":"int32"},"edge_feature_2":{"shape":[-1],"type":"float32"},"edge_feature_index":{"shape":[-1],"type":"int32"},"first_id":{"type":"int64"},"node_feature_1":{"shape":[-1],"type":"int32"},"node_feature_2":{"shape":[-1],"type":"float32"},"node_feature_3":{"shape":[-1],"type":"int32"},"node_feature_4":{"shape":[-1],"type":"int32"},"node_feature_index":{"shape":[-1],"type":"int32"},"second_id":{"type":"int64"},"third_id":{"type":"int64"},"type":{"type":"int32"},"weight":{"type":"float32"}}})",
    // twobytes (compat, v2.0): two bytes blob fields.
    R"({"blob_fields":["img_data","label_data"],"desc":"two_images_schema","schema":{"file_name":{"type":"string"},"id":{"type":"int32"},"img_data":{"type":"bytes"},"label_data":{"type":"bytes"},"label_name":{"type":"string"}}})",
    // int64 and 2-D arrays, a fixed shape, float64.
    R"({"blob_fields":["boxes","ids","mask","score"],"desc":"","schema":{"boxes":{"shape":[-1,4],"type":"int64"},"ids":{"shape":[3],"type":"int32"},"mask":{"type":"bytes"},"name":{"type":"string"},"score":{"shape":[-1],"type":"float64"},"x":{"type":"float64"}}})",
};

enum SchemaId { kImagenet = 0, kGraph = 1, kTwoBytes = 2, kArrays = 3 };

inline const std::vector<Schema>& Schemas() {
  static const std::vector<Schema> schemas = [] {
    std::vector<Schema> out;
    for (const char* s : kSchemas) out.push_back(*Schema::FromHeaderJson(nlohmann::json::parse(s)));
    return out;
  }();
  return schemas;
}

}  // namespace mindrecord::fuzz
