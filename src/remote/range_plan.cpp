// Which ranges of a remote file to fetch (see range_plan.hpp).
#include "range_plan.hpp"

#include <algorithm>

namespace onnxview {
namespace detail {

range_plan::range_plan(std::uint64_t size, const range_plan_limits& limits)
    : size_(size), limits_(limits), bits_((size / limits.page + 1) / 64 + 1, 0), window_(limits.first_window) {}

std::uint64_t range_plan::ceil_page(std::uint64_t x) const noexcept {
    const std::uint64_t up = x % limits_.page == 0 ? x : floor_page(x) + limits_.page;
    return std::min(up, size_);
}

bool range_plan::has(std::uint64_t offset, std::uint64_t length) const noexcept {
    if (length == 0) return true;
    const std::uint64_t last = (offset + length - 1) / limits_.page;
    for (std::uint64_t p = offset / limits_.page; p <= last; ++p)
        if (!page_held(p)) return false;
    return true;
}

void range_plan::mark(std::uint64_t begin, std::uint64_t end) noexcept {
    end = std::min(end, size_);
    if (begin >= end) return;
    std::uint64_t first = (begin + limits_.page - 1) / limits_.page;
    const std::uint64_t stop = end == size_ ? (end + limits_.page - 1) / limits_.page : end / limits_.page;
    for (; first < stop; ++first) {
        std::uint64_t& word = bits_[first / 64];
        const std::uint64_t bit = std::uint64_t(1) << (first % 64);
        if (!(word & bit)) ++held_pages_;
        word |= bit;
    }
}

void range_plan::add_missing(std::uint64_t begin, std::uint64_t end, std::vector<byte_range>& out) const {
    end = std::min(end, size_);
    std::uint64_t at = floor_page(begin);
    if (!out.empty() && out.back().end > at) at = out.back().end;  // the part already planned
    while (at < end) {
        if (page_held(at / limits_.page)) {
            at += limits_.page;
            continue;
        }
        std::uint64_t stop = at;
        while (stop < end && !page_held(stop / limits_.page)) stop += limits_.page;
        stop = std::min(stop, size_);
        // Ranges come in ascending order; a range that touches the last is one range.
        if (!out.empty() && out.back().end == at)
            out.back().end = stop;
        else if (out.empty() || out.back().end < at)
            out.push_back(byte_range{at, stop});
        at = stop;
    }
}

unsigned range_plan::find_period() const noexcept {
    const std::size_t n = starts_.size();
    for (unsigned period = 1; period <= limits_.max_period && n >= 2 * std::size_t(period) + 1; ++period) {
        bool repeats = true;
        for (std::size_t i = n - period; i < n && repeats; ++i) {
            const std::uint64_t d = starts_[i] - starts_[i - 1];
            const std::uint64_t before = starts_[i - period] - starts_[i - period - 1];
            repeats = (d > before ? d - before : before - d) <= limits_.tolerance;
        }
        if (repeats) return period;
    }
    return 0;
}

void range_plan::predict(std::vector<byte_range>& out) {
    const unsigned period = find_period();
    if (period == 0) {
        streak_ = 0;
        return;
    }
    const std::size_t n = starts_.size();
    // Per phase of the period: its distance, and the largest extent of the
    // runs of that phase in the last two periods (the current run has only
    // begun: not it).
    std::vector<std::uint64_t> distance(period), extent(period, 0);
    for (unsigned k = 0; k < period; ++k) {
        const std::size_t i = n - period + k;
        distance[k] = starts_[i] - starts_[i - 1];
        for (std::size_t m = 1; m <= 2; ++m) {
            if (k + n < m * period + 1 + period) continue;
            const std::size_t model = n + k - m * period;  // the run before the k-th predicted one
            if (model + 1 < n) extent[k] = std::max(extent[k], extents_[model]);
        }
        if (extent[k] == 0) extent[k] = limits_.first_window;
    }
    const std::size_t shift = std::min<std::size_t>(2 * streak_, 16);
    const std::size_t count = std::min(limits_.max_predictions, std::size_t(4) << shift);
    std::uint64_t at = starts_.back(), bytes = 0;
    for (std::size_t j = 0; j < count; ++j) {
        at += distance[j % period];
        if (distance[j % period] == 0 || at >= size_) break;
        // Positions drift from the prediction a little with each step (a
        // layer named w100 is a byte longer than w99), mostly forwards.
        const std::uint64_t before = limits_.tolerance + j, after = limits_.tolerance + 4 * j;
        const std::uint64_t begin = floor_page(at > before ? at - before : 0);
        const std::uint64_t end = ceil_page(std::min(size_, at + extent[j % period] + after));
        bytes += end - begin;
        if (bytes > limits_.max_prediction_bytes) break;
        add_missing(begin, end, out);
        predicted_until_ = end;
    }
}

std::vector<byte_range> range_plan::plan(std::uint64_t offset, std::uint64_t length) {
    std::vector<byte_range> out;
    if (offset >= size_ || length == 0) return out;
    length = std::min(length, size_ - offset);
    const std::uint64_t end = offset + length;
    const bool continues = !starts_.empty() && offset <= run_end_ + limits_.page && offset + limits_.page >= run_end_;
    if (continues) {
        extents_.back() = std::max(extents_.back(), end - starts_.back());
        run_end_ = std::max(run_end_, end);
    } else {
        if (!starts_.empty() && offset < starts_.back()) {
            // A reader going back: the history says nothing of where it goes next.
            starts_.clear();
            extents_.clear();
            predicted_until_ = 0;
            streak_ = 0;
        }
        // A long history is no better than the last periods.
        const std::size_t keep = 4 * std::size_t(limits_.max_period) + 2;
        if (starts_.size() >= 2 * keep) {
            starts_.erase(starts_.begin(), starts_.end() - static_cast<std::ptrdiff_t>(keep));
            extents_.erase(extents_.begin(), extents_.end() - static_cast<std::ptrdiff_t>(keep));
        }
        starts_.push_back(offset);
        extents_.push_back(length);
        run_end_ = end;
    }
    if (!continues) window_ = limits_.first_window;
    if (has(offset, length)) return out;
    if (continues) window_ = std::min(window_ * limits_.run_growth, limits_.max_window);
    const std::uint64_t begin = floor_page(offset);
    add_missing(begin, ceil_page(std::max(end, begin + window_)), out);
    if (!continues) {
        // A miss past what was predicted: the predictions held (or there were none).
        if (predicted_until_ != 0) streak_ = offset >= predicted_until_ ? streak_ + 1 : 0;
        predict(out);
    }
    return out;
}

void range_plan::reached(std::uint64_t end) noexcept {
    if (starts_.empty() || end <= run_end_) return;
    run_end_ = std::min(end, size_);
    extents_.back() = std::max(extents_.back(), run_end_ - starts_.back());
}

}  // namespace detail
}  // namespace onnxview
