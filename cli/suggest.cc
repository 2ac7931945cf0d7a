#include "cli/suggest.h"

#include <algorithm>

namespace mindrecord::cli {

namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The verb named on the command line (first word not starting with '-').
const char* VerbArg(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') return argv[i];
  }
  return nullptr;
}

}  // namespace

std::string Closest(const std::string& typed, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, typed.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = EditDistance(typed, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string UnknownVerb(const CLI::App& app, int argc, char** argv) {
  const char* verb = VerbArg(argc, argv);
  if (verb == nullptr) return "";
  std::vector<std::string> verbs;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == verb) return "";
    verbs.push_back(sub->get_name());
  }
  std::string msg = std::string("unknown command '") + verb + "'";
  const std::string near = Closest(verb, verbs);
  if (!near.empty()) msg += " (did you mean '" + near + "'?)";
  msg += "; commands:";
  for (const auto& v : verbs) msg += " " + v;
  return msg;
}

std::string OptionHints(CLI::App& app, int argc, char** argv) {
  const char* verb = VerbArg(argc, argv);
  CLI::App* sub = nullptr;
  try {
    sub = verb ? app.get_subcommand(verb) : nullptr;
  } catch (const CLI::OptionNotFound&) {
    return "";
  }
  if (sub == nullptr) return "";
  std::vector<std::string> names;
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  }
  std::string hints;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(names.begin(), names.end(), arg) != names.end()) continue;
    const std::string near = Closest(arg, names);
    hints += "mindrecord " + std::string(verb) + ": unknown option " + arg;
    hints += near.empty() ? "\n" : " (did you mean " + near + "?)\n";
  }
  return hints;
}

}  // namespace mindrecord::cli
