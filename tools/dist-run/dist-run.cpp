//===- dist-run.cpp - Run a distc artifact on the CPU ---------------------===//
//
// dist-run ARTIFACT --mode MODE [--params DIR] --input NAME=@x.npy ...
//          [--output NAME=@y.npy ... | --output -]
//          [--expected-output NAME=@ref.npy ...] [--rtol R] [--atol A]
//
// Exit status: 0 on success, 1 on any error or any output mismatch. Every
// error is one line "dist-run: error: ...". See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "distc/Runtime/Npy.h"
#include "distc/Runtime/Session.h"
#include "distc/Runtime/TensorFormat.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <map>

using namespace distc::runtime;

namespace {

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "dist-run: error: %s\n", message.c_str());
  return 1;
}

/// Splits "NAME=@path" into name and path.
bool parseNamedFile(const std::string &arg, const char *flag, std::string &name, std::string &path,
                    std::string &error) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= arg.size() || arg[eq + 1] != '@' ||
      eq + 2 >= arg.size()) {
    error = std::string(flag) + " '" + arg + "' is not of the form NAME=@FILE.npy";
    return false;
  }
  name = arg.substr(0, eq);
  path = arg.substr(eq + 2);
  return true;
}

std::string joinNames(const std::vector<ProgramIO> &ios) {
  std::string s;
  for (const ProgramIO &io : ios)
    s += (s.empty() ? "" : ", ") + io.name;
  return s.empty() ? "(none)" : s;
}

int runTool(int argc, char **argv) {
  CLI::App app{"Runs a distc artifact on the CPU backend."};
  std::string artifactPath, mode, paramsDir;
  std::vector<std::string> inputs, outputs, expected;
  double rtol = 1e-5, atol = 1e-6;
  app.add_option("artifact", artifactPath, "The artifact file written by distc")->required();
  app.add_option("--mode", mode, "Mode to run: predict, eval, ...")->required();
  app.add_option("--params", paramsDir,
                 "Directory of <name>.npy parameter files (default: run the startup program)");
  app.add_option("--input", inputs, "Feed NAME=@file.npy (repeatable)");
  app.add_option("--output", outputs,
                 "Write fetch NAME=@file.npy (repeatable), or '-' to print every fetch");
  app.add_option("--expected-output", expected,
                 "Compare fetch NAME with @ref.npy (repeatable); exit 1 on mismatch");
  app.add_option("--rtol", rtol, "Relative tolerance for --expected-output");
  app.add_option("--atol", atol, "Absolute tolerance for --expected-output");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }

  std::string error;
  auto session = Session::open(artifactPath, error);
  if (!session)
    return fail(error);
  if (!session->hasMode(mode)) {
    std::string list;
    for (const std::string &m : session->modes())
      list += (list.empty() ? "" : ", ") + m;
    return fail(artifactPath + ": no mode '" + mode +
                "'; the artifact has: " + (list.empty() ? "(none)" : list));
  }
  const std::vector<ProgramIO> fetchList = session->fetches(mode);

  // Validate the output requests before running anything.
  bool printAll = false;
  std::map<std::string, std::string> outputFiles;
  auto isFetch = [&](const std::string &name) {
    for (const ProgramIO &f : fetchList)
      if (f.name == name)
        return true;
    return false;
  };
  for (const std::string &o : outputs) {
    if (o == "-") {
      printAll = true;
      continue;
    }
    std::string name, path;
    if (!parseNamedFile(o, "--output", name, path, error))
      return fail(error);
    if (!isFetch(name))
      return fail("--output: no fetch named '" + name + "' in mode '" + mode +
                  "'; fetches: " + joinNames(fetchList));
    outputFiles[name] = path;
  }
  std::vector<std::pair<std::string, Tensor>> references;
  for (const std::string &e : expected) {
    std::string name, path;
    if (!parseNamedFile(e, "--expected-output", name, path, error))
      return fail(error);
    if (!isFetch(name))
      return fail("--expected-output: no fetch named '" + name + "' in mode '" + mode +
                  "'; fetches: " + joinNames(fetchList));
    Tensor ref;
    Status s = readNpy(path, ref);
    if (!s.ok())
      return fail(s.message());
    references.emplace_back(name, std::move(ref));
  }
  TensorMap feeds;
  for (const std::string &in : inputs) {
    std::string name, path;
    if (!parseNamedFile(in, "--input", name, path, error))
      return fail(error);
    if (feeds.count(name))
      return fail("--input '" + name + "' given twice");
    Tensor t;
    Status s = readNpy(path, t);
    if (!s.ok())
      return fail(s.message());
    feeds[name] = std::move(t);
  }

  Status s = paramsDir.empty() ? session->initialize(mode) : session->loadParams(paramsDir, mode);
  if (!s.ok())
    return fail(s.message());
  TensorMap fetches;
  s = session->run(mode, feeds, fetches);
  if (!s.ok())
    return fail(s.message());

  for (const auto &[name, path] : outputFiles) {
    Status w = writeNpy(path, fetches.at(name));
    if (!w.ok())
      return fail(w.message());
  }
  // With neither --output nor --expected-output, printing is the point.
  if (outputs.empty() && references.empty())
    printAll = true;
  if (printAll)
    for (const ProgramIO &f : fetchList) {
      const Tensor &t = fetches.at(f.name);
      std::printf("%s: %s\n%s\n", f.name.c_str(), t.typeString().c_str(),
                  formatTensorValues(t).c_str());
    }
  bool allMatch = true;
  for (const auto &[name, ref] : references) {
    auto mismatch = compareTensors(fetches.at(name), ref, rtol, atol);
    if (mismatch) {
      allMatch = false;
      std::printf("%s: %s\n", name.c_str(), mismatch->c_str());
    } else {
      std::printf("%s: OK\n", name.c_str());
    }
  }
  std::fflush(stdout);
  if (!allMatch) {
    std::fprintf(stderr, "dist-run: error: outputs differ from the expected values\n");
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return runTool(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  } catch (const std::exception &e) {
    return fail(std::string("internal error: ") + e.what());
  }
}
