// Internal: which byte ranges of a remote file to ask for, given the ranges
// a reader needs one at a time. Knows nothing of HTTP or of ONNX: it sees the
// sequence of needs (fetch_metadata gives them in ascending order, one per
// field head and metadata body) and answers with page-aligned ranges to
// fetch, so that a walk over a 1.5 GB model's metadata costs a dozen
// requests instead of one per tensor:
//
//   - A need that continues the bytes fetched last (a run of metadata) is
//     fetched with a window that grows sixteenfold per request, up to
//     max_window: a dense 30 MB graph in five requests. (Fourfold took
//     seven, and each round trip cost more than the window's overshoot
//     past the end of a run, which max_window bounds either way.)
//   - A need elsewhere (the next tensor's header after a skipped payload)
//     is fetched with a first_window, and its position is remembered. When
//     the distances between such positions repeat with a period (a model's
//     layers have the same tensors), the next positions are predicted and
//     fetched along with it, each with the extent its counterpart in the
//     period needed: 4 predictions, then 16, 64, ... while the period
//     holds. A wrong prediction costs its window's bytes, never a wrong
//     byte: whatever is read comes from its true offset.
//
// Pure arithmetic over a page bitmap: unit-tested without a server
// (tests/remote/range_plan_test.cpp).
#ifndef ONNXVIEW_SRC_REMOTE_RANGE_PLAN_HPP
#define ONNXVIEW_SRC_REMOTE_RANGE_PLAN_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnxview {
namespace detail {

struct byte_range {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;  // exclusive
    std::uint64_t size() const noexcept { return end - begin; }
    bool operator==(const byte_range& o) const noexcept { return begin == o.begin && end == o.end; }
};

struct range_plan_limits {
    std::uint64_t page = 4096;                          // ranges are whole pages (the last may end at the file's end)
    std::uint64_t first_window = std::uint64_t(16) << 10;
    std::uint64_t max_window = std::uint64_t(16) << 20;
    std::uint64_t run_growth = 16;                      // factor of the window from one request of a run to the next
    std::size_t max_predictions = 1024;                 // positions predicted in one batch
    std::uint64_t max_prediction_bytes = std::uint64_t(32) << 20;
    unsigned max_period = 16;                           // distances in one period of a model's layout
    // Bytes by which two distances of one period may differ (names grow:
    // w9, w10), and the margin of a predicted range.
    std::uint64_t tolerance = 256;
};

class range_plan {
public:
    range_plan(std::uint64_t size, const range_plan_limits& limits = {});

    std::uint64_t size() const noexcept { return size_; }
    const range_plan_limits& limits() const noexcept { return limits_; }
    bool has(std::uint64_t offset, std::uint64_t length) const noexcept;
    // The pages of [begin, end) are now held (end rounded down to a page
    // unless it is the file's end: a partial page is not held).
    void mark(std::uint64_t begin, std::uint64_t end) noexcept;
    std::uint64_t held_bytes() const noexcept { return held_pages_ * limits_.page; }

    // The ranges to fetch so that [offset, offset + length) is held,
    // ascending and disjoint, none held already; the first covers the need
    // itself. Empty when it is held. Updates the history that predictions
    // come from, so call it once per need, and mark() what arrives.
    std::vector<byte_range> plan(std::uint64_t offset, std::uint64_t length);
    // The reader went on to `end` in the current run with needs it did not
    // plan (a stream served them): a need right after continues the run.
    void reached(std::uint64_t end) noexcept;

private:
    std::uint64_t floor_page(std::uint64_t x) const noexcept { return x / limits_.page * limits_.page; }
    std::uint64_t ceil_page(std::uint64_t x) const noexcept;
    bool page_held(std::uint64_t page) const noexcept { return (bits_[page / 64] >> (page % 64)) & 1u; }
    // The missing parts of [begin, end), appended to out.
    void add_missing(std::uint64_t begin, std::uint64_t end, std::vector<byte_range>& out) const;
    // The distances of the last positions repeat with some period: predicts
    // the next ones (their ranges, appended to out) and records them.
    void predict(std::vector<byte_range>& out);
    unsigned find_period() const noexcept;

    std::uint64_t size_;
    range_plan_limits limits_;
    std::vector<std::uint64_t> bits_;
    std::uint64_t held_pages_ = 0;
    std::uint64_t run_end_ = 0;   // the end of the last need (a need starting near it continues a run)
    std::uint64_t window_;        // the next window of the current run
    // Where the last runs started (every need that did not continue a run,
    // fetched or not) and how far each reached: predictions continue them.
    std::vector<std::uint64_t> starts_;
    std::vector<std::uint64_t> extents_;
    std::uint64_t predicted_until_ = 0;  // the end of the last predicted range
    unsigned streak_ = 0;                // batches of predictions in a row that the layout bore out
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_REMOTE_RANGE_PLAN_HPP
