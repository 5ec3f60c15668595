#include "cli/cli_common.h"

#include <getopt.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>

#include <cstdio>
#include <string>

extern char** environ;

namespace drover::cli {

std::map<std::string, std::string> processEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view item(*e);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(item.substr(0, eq), item.substr(eq + 1));
  }
  return env;
}

std::string workingDirectory() {
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) ? cwd : "";
}

std::string hostName() {
  char host[HOST_NAME_MAX + 1] = {};
  return gethostname(host, sizeof host) == 0 ? host : "";
}

namespace {

std::string shellQuote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`;&|<>()*?[]{}!#~") == std::string::npos) return arg;
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace

std::string submitLine(std::string_view prog, const std::vector<std::string>& args) {
  std::string line(prog);
  for (const auto& a : args) line += " " + shellQuote(a);
  return line;
}

namespace {
void printLabelled(std::string_view prog, std::string_view label, std::string_view message) {
  std::string line;
  line.append(prog).append(label).append(message).append("\n");
  std::fputs(line.c_str(), stderr);
}
}  // namespace

bool keywordArgumentsOk(const std::vector<std::string>& words, std::size_t least, std::size_t most) {
  if (words.size() >= least && words.size() <= most) return true;
  std::cerr << (words.size() < least ? "too few" : "too many") << " arguments for keyword:"
            << words.front() << "\n";
  return false;
}

void printError(std::string_view prog, std::string_view message) {
  if (message.substr(0, kBareMark.size()) == kBareMark) {
    std::fputs((std::string(message.substr(kBareMark.size())) + "\n").c_str(), stderr);
    return;
  }
  printLabelled(prog, ": error: ", message);
}

void printParseError(std::string_view prog, std::string_view message) {
  if (message.substr(0, kFatalMark.size()) == kFatalMark) {
    printLabelled(prog, ": fatal: ", message.substr(kFatalMark.size()));
  } else if (message == kFormatWithLong) {
    printLabelled(prog, ": fatal: ", message);
  } else {
    printError(prog, message);  // bare messages as they are, the rest as errors
  }
}

std::vector<std::string> argsWithEnvironment(int argc, char** argv,
                                             std::initializer_list<EnvOption> table) {
  std::vector<std::string> args;
  for (const EnvOption& e : table) {
    const char* value = std::getenv(e.variable);
    if (value == nullptr || *value == '\0') continue;
    args.push_back(e.takes_value ? std::string(e.option) + "=" + value : std::string(e.option));
  }
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

GetoptArgs::GetoptArgs(std::string_view prog, const std::vector<std::string>& args) {
  storage_.reserve(args.size() + 1);
  storage_.emplace_back(prog);
  storage_.insert(storage_.end(), args.begin(), args.end());
  for (auto& s : storage_) pointers_.push_back(s.data());
  pointers_.push_back(nullptr);
}

std::string unrecognizedOption(std::string_view prog, int result, std::string_view consumed,
                               const option* longopts, bool try_line) {
  const bool long_option = consumed.substr(0, 2) == "--";
  // The option getopt_long took, by its full name (`--par` was `--partitions`): the exact name,
  // else the first it abbreviates, as getopt_long chose it.
  const std::string given(consumed.substr(2, consumed.find('=') - 2));
  std::string name;
  for (const option* o = longopts; long_option && o && o->name; ++o) {
    if (given == o->name) {
      name = "--" + given;
      break;
    }
    if (name.empty() && std::string_view(o->name).substr(0, given.size()) == given) {
      name = std::string("--") + o->name;
    }
  }
  if (name.empty()) name = "--" + given;
  const std::string letter(1, static_cast<char>(optopt));
  std::string what;
  if (result == ':') {
    what = long_option ? "option '" + name + "' requires an argument"
                       : "option requires an argument -- '" + letter + "'";
  } else if (!long_option) {
    what = "invalid option -- '" + letter + "'";
  } else if (optopt != 0) {
    what = "option '" + name + "' doesn't allow an argument";
  } else {
    what = "unrecognized option '" + std::string(consumed) + "'";
  }
  std::string out = std::string(kBareMark) + std::string(prog) + ": " + what;
  if (try_line) out += "\nTry \"" + std::string(prog) + " --help\" for more information";
  return out;
}

}  // namespace drover::cli
