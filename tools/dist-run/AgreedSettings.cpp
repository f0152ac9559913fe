//===- AgreedSettings.cpp - Settings every node of a job must share -------===//

#include "AgreedSettings.h"

#include <cstdio>

namespace distc::launch {

namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

/// Repeatable flags as one value: "x=@a.npy label=@b.npy".
std::string list(const std::vector<std::string> &values) {
  std::string s;
  for (const std::string &v : values)
    s += (s.empty() ? "" : " ") + v;
  return s.empty() ? "(not given)" : s;
}

const char *given(bool yes) { return yes ? "(given)" : "(not given)"; }
const char *onOff(bool yes) { return yes ? "on" : "off"; }

} // namespace

std::vector<std::pair<std::string, std::string>>
agreedSettings(const training::TrainOptions &t, const std::string &mode, const std::string &backend,
               const std::string &artifactChecksum) {
  return {
      {"the artifact (checksum)", artifactChecksum},
      {"--mode", mode},
      {"--backend", backend},
      {"--data", list(t.data)},
      {"--split-files", onOff(t.splitFiles)},
      {"--batch-size", std::to_string(t.batchSize)},
      {"--seed", std::to_string(t.seed)},
      {"--no-shuffle", onOff(!t.shuffle)},
      {"--steps", t.steps ? std::to_string(*t.steps) : "(not given)"},
      {"--epochs", t.epochs ? number(*t.epochs) : "(not given)"},
      {"--holdout", number(t.holdout)},
      {"--eval-data", list(t.evalData)},
      {"--eval-every", std::to_string(t.evalEvery)},
      {"--init-from", t.initFrom.empty() ? "(not given)" : t.initFrom},
      {"--resume", onOff(t.resume)},
      {"--save-every", std::to_string(t.saveEvery)},
      {"--checkpoint-dir", given(!t.checkpointDir.empty())},
      {"--save-persistables", given(!t.savePersistablesDir.empty())},
  };
}

} // namespace distc::launch
