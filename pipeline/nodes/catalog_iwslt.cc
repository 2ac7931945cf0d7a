// IWSLT2016Dataset's and IWSLT2017Dataset's sentence pairs
// (catalog_layouts.h), from the extracted archive under dataset_dir/texts:
// 2016 SRC/TGT/SRC-TGT/, 2017 DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/.
// usage train reads train.tags.SRC-TGT.{SRC,TGT} line by line in step,
// leaving out pairs where either line is talk metadata (<url, <keywords,
// <talkid, <description, <reviewer, <translator, <title, <speaker, <doc,
// </doc), as MindSpore's; valid and test read IWSLT{16,17}.TED.SET.SRC-TGT.
// {SRC,TGT}.xml, the <seg> texts of each <doc> in step (2016: valid_set,
// test_set; 2017: dev2010, tst2010); all: train, valid, test. Texts lose
// their leading and trailing spaces. MindSpore writes cleaned copies of
// these files into the dataset's folder; nothing is written here.
#include <filesystem>

#include <pugixml.hpp>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kIwsltWho = "IWSLTDataset";

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool IsTalkMetadata(std::string_view line) {
  for (const char* tag : {"<url", "<keywords", "<talkid", "<description", "<reviewer", "<translator", "<title",
                          "<speaker", "<doc", "</doc"})
    if (line.find(tag) != std::string_view::npos) return true;
  return false;
}

void AddIwsltPair(Catalog& c, std::string_view a, std::string_view b) {
  c.values.push_back(Tensor::FromString(TensorType::kString, std::string(a)));
  c.values.push_back(Tensor::FromString(TensorType::kString, std::string(b)));
}

Status ReadTags(Catalog& c, const std::string& src_path, const std::string& tgt_path) {
  MR_ASSIGN_OR_RETURN(std::string src, ReadListFile(src_path, kIwsltWho));
  MR_ASSIGN_OR_RETURN(std::string tgt, ReadListFile(tgt_path, kIwsltWho));
  const auto s = NumberedLines(src), t = NumberedLines(tgt);
  if (s.size() != t.size())
    return Status::Corruption(std::string(kIwsltWho) + ": " + src_path + " has " + std::to_string(s.size()) +
                              " lines, " + tgt_path + " " + std::to_string(t.size()));
  for (size_t i = 0; i < s.size(); ++i) {
    const std::string_view a = CatalogChomp(s[i].second), b = CatalogChomp(t[i].second);
    if (IsTalkMetadata(a) || IsTalkMetadata(b)) continue;
    if (a.empty() || b.empty())
      return Status::Corruption(std::string(kIwsltWho) + ": " + (a.empty() ? src_path : tgt_path) + ":" +
                                std::to_string(s[i].first) + ": an empty line");
    AddIwsltPair(c, TrimSpaces(a), TrimSpaces(b));
  }
  return Status::OK();
}

// The <seg> texts of each <doc> of an IWSLT XML file (mteval / srcset or
// refset / doc / seg).
Result<std::vector<std::vector<std::string>>> XmlSegments(const std::string& path) {
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(path, kIwsltWho));
  pugi::xml_document doc;
  const pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size());
  if (!r)
    return Status::Corruption(std::string(kIwsltWho) + ": " + path + ": not XML at byte " +
                              std::to_string(r.offset) + " (" + r.description() + ")");
  const pugi::xml_node set = doc.document_element().first_child();
  if (!set || set.type() != pugi::node_element)
    return Status::Corruption(std::string(kIwsltWho) + ": " + path + ": no srcset or refset element");
  std::vector<std::vector<std::string>> docs;
  for (pugi::xml_node d = set.child("doc"); d; d = d.next_sibling("doc")) {
    docs.emplace_back();
    for (pugi::xml_node seg = d.child("seg"); seg; seg = seg.next_sibling("seg"))
      docs.back().emplace_back(TrimSpaces(seg.text().get()));
  }
  if (docs.empty()) return Status::Corruption(std::string(kIwsltWho) + ": " + path + ": no <doc> element");
  return docs;
}

Status ReadXml(Catalog& c, const std::string& src_path, const std::string& tgt_path) {
  MR_ASSIGN_OR_RETURN(auto src, XmlSegments(src_path));
  MR_ASSIGN_OR_RETURN(auto tgt, XmlSegments(tgt_path));
  if (src.size() != tgt.size())
    return Status::Corruption(std::string(kIwsltWho) + ": " + src_path + " has " + std::to_string(src.size()) +
                              " <doc> elements, " + tgt_path + " " + std::to_string(tgt.size()));
  for (size_t d = 0; d < src.size(); ++d) {
    if (src[d].size() != tgt[d].size())
      return Status::Corruption(std::string(kIwsltWho) + ": <doc> " + std::to_string(d + 1) + " has " +
                                std::to_string(src[d].size()) + " <seg> elements in " + src_path + ", " +
                                std::to_string(tgt[d].size()) + " in " + tgt_path);
    for (size_t k = 0; k < src[d].size(); ++k) AddIwsltPair(c, src[d][k], tgt[d][k]);
  }
  return Status::OK();
}

}  // namespace

Result<Catalog> ListIwslt(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"year", "usage", "language_pair", "valid_set", "test_set"}));
  const nlohmann::json year_j = args.value("year", nlohmann::json(2016));
  const int year = year_j.is_number_integer() ? year_j.get<int>() : 0;
  if (year != 2016 && year != 2017) return Status::InvalidArgument("an 'iwslt' catalog's year is 2016 or 2017");
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  MR_ASSIGN_OR_RETURN(std::string valid_set, CatalogStringArg(args, "valid_set", year == 2016 ? "tst2013" : "dev2010"));
  MR_ASSIGN_OR_RETURN(std::string test_set, CatalogStringArg(args, "test_set", year == 2016 ? "tst2014" : "tst2010"));
  const nlohmann::json pair = args.value("language_pair", nlohmann::json::array({"de", "en"}));
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
    return Status::InvalidArgument(std::string(kIwsltWho) + ": language_pair must be two language codes");
  const std::string src = pair[0].get<std::string>(), tgt = pair[1].get<std::string>();
  for (const auto& lang : {src, tgt})
    if (lang.size() != 2 || !std::islower(static_cast<unsigned char>(lang[0])) ||
        !std::islower(static_cast<unsigned char>(lang[1])))
      return Status::InvalidArgument(std::string(kIwsltWho) + ": '" + lang + "' is not a language code");
  const std::vector<std::string> sets = {"dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014"};
  for (const auto& s : {valid_set, test_set})
    if (std::find(sets.begin(), sets.end(), s) == sets.end())
      return Status::InvalidArgument(std::string(kIwsltWho) + ": '" + s + "' is not an IWSLT dev or test set");
  if (usage != "train" && usage != "valid" && usage != "test" && usage != "all")
    return Status::InvalidArgument(std::string(kIwsltWho) + ": usage must be 'train', 'valid', 'test' or 'all', got '" +
                                   usage + "'");
  const std::string pair_name = src + "-" + tgt;
  fs::path folder = fs::path(args["dataset_dir"].get<std::string>()) / "texts";
  folder = year == 2016 ? folder / src / tgt / pair_name : folder / "DeEnItNlRo" / "DeEnItNlRo" / "DeEnItNlRo-DeEnItNlRo";
  const std::string prefix = year == 2016 ? "IWSLT16.TED." : "IWSLT17.TED.";
  Catalog c;
  c.columns = {"text", "translation"};
  if (usage == "train" || usage == "all") {
    const std::string tags = (folder / ("train.tags." + pair_name + ".")).string();
    MR_RETURN_IF_ERROR(ReadTags(c, tags + src, tags + tgt));
  }
  for (const auto& [use, set] : {std::pair<std::string, std::string>{"valid", valid_set}, {"test", test_set}}) {
    if (usage != use && usage != "all") continue;
    const std::string xml = (folder / (prefix + set + "." + pair_name + ".")).string();
    MR_RETURN_IF_ERROR(ReadXml(c, xml + src + ".xml", xml + tgt + ".xml"));
  }
  return c;
}

}  // namespace mindrecord
