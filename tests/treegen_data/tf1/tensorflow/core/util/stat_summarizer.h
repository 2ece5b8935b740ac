/* Stand-in written for tfbuild's test trees: NOT TensorFlow's stat_summarizer.h.

TensorFlow's StatSummarizer aggregates the StepStats of RunMetadata protos
into per-node timing tables. The stand-in reads the serialized RunMetadata
itself (step_stats = 1, StepStats.dev_stats = 1, DeviceStepStats.node_stats = 2)
and counts runs and node stats; its summary says so.
==============================================================================*/

#ifndef TENSORFLOW_CORE_UTIL_STAT_SUMMARIZER_H_
#define TENSORFLOW_CORE_UTIL_STAT_SUMMARIZER_H_

#include <cstdint>
#include <sstream>
#include <string>

namespace tensorflow {

struct StatSummarizerOptions {
  bool show_run_order = true;
  int run_order_limit = 0;
};

class StatSummarizer {
 public:
  enum SortingMetric { BY_NAME, BY_RUN_ORDER, BY_TIME, BY_MEMORY, BY_TYPE };

  explicit StatSummarizer(const StatSummarizerOptions& options) : options_(options) {}

  // False when `run_metadata` is not a serialized RunMetadata.
  bool ProcessRunMetadata(const std::string& run_metadata) {
    std::int64_t node_stats = 0;
    if (!CountNodeStats(run_metadata, 0, &node_stats)) return false;
    ++runs_;
    node_stats_ += node_stats;
    return true;
  }

  std::string GetStatsByMetric(const std::string& title, SortingMetric, int num_stats) const {
    std::ostringstream out;
    out << "============================== " << title << " ==============================\n"
        << "(the stand-in records no timings; at most " << num_stats << " rows)\n";
    return out.str();
  }
  std::string GetStatsByNodeType() const { return "(no node types recorded)\n"; }
  std::string ShortSummary() const {
    std::ostringstream out;
    out << "Timings (stand-in): " << runs_ << " runs, " << node_stats_ << " node stats\n";
    return out.str();
  }

 private:
  // Walks RunMetadata (depth 0) -> StepStats (1) -> DeviceStepStats (2), counting
  // DeviceStepStats' node_stats entries.
  static bool CountNodeStats(const std::string& bytes, int depth, std::int64_t* count) {
    std::size_t at = 0;
    while (at < bytes.size()) {
      std::uint64_t key = 0, length = 0;
      if (!Varint(bytes, &at, &key)) return false;
      const int field = static_cast<int>(key >> 3);
      switch (key & 7) {
        case 0: if (!Varint(bytes, &at, &length)) return false; continue;
        case 1: at += 8; continue;
        case 5: at += 4; continue;
        case 2: break;
        default: return false;
      }
      if (!Varint(bytes, &at, &length) || length > bytes.size() - at) return false;
      const std::string inner = bytes.substr(at, static_cast<std::size_t>(length));
      at += static_cast<std::size_t>(length);
      if (depth == 2 && field == 2) ++*count;
      if (depth < 2 && field == 1 && !CountNodeStats(inner, depth + 1, count)) return false;
    }
    return at == bytes.size();
  }
  static bool Varint(const std::string& bytes, std::size_t* at, std::uint64_t* value) {
    *value = 0;
    for (int shift = 0; *at < bytes.size() && shift < 64; shift += 7) {
      const unsigned char byte = static_cast<unsigned char>(bytes[(*at)++]);
      *value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  StatSummarizerOptions options_;
  std::int64_t runs_ = 0;
  std::int64_t node_stats_ = 0;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_UTIL_STAT_SUMMARIZER_H_
