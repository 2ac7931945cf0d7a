// "Did you mean" hints for a mistyped verb or option of the `mindrecord` CLI.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace mindrecord::cli {

// The name among `candidates` closest to `typed` by edit distance, if it is
// within a third of the typed length (at least 2 edits); "" otherwise.
std::string Closest(const std::string& typed, const std::vector<std::string>& candidates);

// For argv before parsing: a message naming the first word that is not a
// verb of `app` (with the closest verb), or "" when the verb is known.
std::string UnknownVerb(const CLI::App& app, int argc, char** argv);

// For argv after a parse error: "did you mean" lines for each --option the
// verb does not have, or "".
std::string OptionHints(CLI::App& app, int argc, char** argv);

}  // namespace mindrecord::cli
