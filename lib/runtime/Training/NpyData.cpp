//===- NpyData.cpp - Dataset columns from .npy files and .npz archives ----===//

#include "distc/Training/Dataset.h"

#include "distc/Runtime/Npy.h"
#include "distc/Training/Npz.h"

#include <set>

namespace distc::training {

Status loadNpyColumn(Dataset &into, const std::string &feed, const std::string &path) {
  Tensor column;
  if (Status st = runtime::readNpy(path, column); !st.ok())
    return st;
  return addColumn(into, feed, std::move(column), path);
}

Status parseNpzMapping(std::string_view spec, std::vector<NpzFeed> &out) {
  std::vector<NpzFeed> feeds;
  std::set<std::string> seen;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view item =
        spec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t eq = item.find('=');
    NpzFeed feed;
    feed.feed = std::string(item.substr(0, eq));
    feed.member = eq == std::string_view::npos ? feed.feed : std::string(item.substr(eq + 1));
    if (feed.feed.empty() || feed.member.empty())
      return Status::error("npz mapping '" + std::string(spec) + "': item '" + std::string(item) +
                           "' is not FEED or FEED=MEMBER");
    if (!seen.insert(feed.feed).second)
      return Status::error("npz mapping '" + std::string(spec) + "': feed '" + feed.feed +
                           "' appears twice");
    feeds.push_back(std::move(feed));
    if (comma == std::string_view::npos)
      break;
    pos = comma + 1;
  }
  out = std::move(feeds);
  return Status::success();
}

Status loadNpzColumns(Dataset &into, const std::string &path, const std::vector<NpzFeed> &feeds) {
  if (feeds.empty()) {
    TensorMap arrays;
    if (Status st = readNpz(path, arrays); !st.ok())
      return st;
    Dataset loaded;
    for (auto &[name, array] : arrays)
      if (Status st = addColumn(loaded, name, array, path + " member '" + name + "'"); !st.ok())
        return st;
    return mergeDatasets(into, std::move(loaded));
  }
  Dataset loaded;
  for (const NpzFeed &feed : feeds) {
    Tensor column;
    if (Status st = readNpzMember(path, feed.member, column); !st.ok())
      return st;
    if (Status st =
            addColumn(loaded, feed.feed, std::move(column), path + " member '" + feed.member + "'");
        !st.ok())
      return st;
  }
  return mergeDatasets(into, std::move(loaded));
}

} // namespace distc::training
