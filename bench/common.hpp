// bench/common.hpp - what every competitor of the benchmark shares: the
// result of a walk, the element conversions, and the competitor table.
//
// Each competitor (onnxview, protozero, libprotobuf with and without an arena)
// walks the same fields of the same ONNX 1.12 schema in the same order and
// fills a walk_result. The harness compares the results of all competitors
// before it times any of them (bench/main.cpp).
#ifndef ONNXVIEW_BENCH_COMMON_HPP
#define ONNXVIEW_BENCH_COMMON_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "onnxview/float_formats.hpp"

namespace bench {

// What a walk counts. The metadata walk (payloads = false) fills every field
// but elements/value_bits/value_sum; the full walk (payloads = true) also
// converts every tensor element to double and sums it.
struct walk_result {
    std::uint64_t graphs = 0;       // main graph, subgraphs, training graphs
    std::uint64_t nodes = 0;        // graph and function nodes
    std::uint64_t attributes = 0;
    std::uint64_t tensors = 0;      // initializers, attribute tensors, sparse values/indices
    std::uint64_t dims = 0;         // tensor dims + shape dimensions of value infos
    std::uint64_t value_infos = 0;  // graph input/output/value_info
    std::uint64_t functions = 0;
    std::uint64_t string_bytes = 0; // every name/op_type/domain/input/output/attribute string
    std::uint64_t int_sum = 0;      // wrapping sum of every integer read, floats as bit patterns
    std::uint64_t elements = 0;     // full walk: tensor elements summed
    std::uint64_t value_bits = 0;   // full walk: wrapping sum of each tensor's sum, as bits
    double value_sum = 0;           // full walk: for display (order of tensors varies)

    bool operator==(const walk_result& o) const noexcept {
        return graphs == o.graphs && nodes == o.nodes && attributes == o.attributes &&
               tensors == o.tensors && dims == o.dims && value_infos == o.value_infos &&
               functions == o.functions && string_bytes == o.string_bytes &&
               int_sum == o.int_sum && elements == o.elements && value_bits == o.value_bits;
    }
    bool operator!=(const walk_result& o) const noexcept { return !(*this == o); }
    std::string str() const;
    void add(const walk_result& o) noexcept;
};

inline std::uint64_t float_bits(float f) noexcept {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline std::uint64_t double_bits(double d) noexcept {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

// The sum of one tensor's elements. Element i goes to lane i % 8, and the
// lanes are added in a fixed tree at the end, so a competitor that feeds one
// element at a time and one that feeds a contiguous block get the same bits;
// eight lanes keep the block loop from being bound by the latency of one add.
class tensor_sum {
public:
    void add(double v) noexcept {
        acc_[n_ & 7] += v;
        ++n_;
    }
    // A block of little-endian raw_data of ONNX data type `dtype`.
    void add_raw(std::int32_t dtype, const char* p, std::size_t bytes) noexcept;
    // Elements of the typed fields, converted as ONNX stores them there.
    void add_int32_field(std::int32_t dtype, std::int32_t v) noexcept;
    void add_float_block(const float* p, std::size_t n) noexcept;    // contiguous float_data
    void add_double_block(const double* p, std::size_t n) noexcept;  // contiguous double_data
    void finish(walk_result& r) const noexcept {
        const double s = ((acc_[0] + acc_[1]) + (acc_[2] + acc_[3])) +
                         ((acc_[4] + acc_[5]) + (acc_[6] + acc_[7]));
        r.elements += n_;
        r.value_bits += double_bits(s);
        r.value_sum += s;
    }

private:
    template <class Load>
    void add_fixed(const char* p, std::size_t count, std::size_t width, Load load) noexcept;
    double acc_[8] = {};
    std::uint64_t n_ = 0;
};

// Set by the memory child (bench/main.cpp): each walk calls it once at its end,
// while everything it built is still alive, so the peak can be measured.
extern void (*peak_probe)();
inline void at_peak() {
    if (peak_probe) peak_probe();
}

// Set by the harness (bench/main.cpp) to time the destruction of what a walk
// built apart from the walk: libprotobuf frees a message tree (or an arena)
// at the end of every parse + walk, which is a cost of its own, reported in
// its own row. Null: each walk destroys what it built, as before.
extern std::vector<std::shared_ptr<void>>* kept_trees;
// A walk's last step, given its tree by value: the tree goes to kept_trees
// when set, else it is destroyed on return.
template <class Tree>
void keep_or_destroy(Tree tree) {
    if (kept_trees) kept_trees->push_back(std::make_shared<Tree>(std::move(tree)));
}

// A walk over bytes already in memory: competitor::walk.
using walk_bytes_fn = bool (*)(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err);

// A competitor: the same three entry points for every library.
struct competitor {
    const char* name;
    // Workload 1: path -> a handle whose graph can be read (located, not yet
    // read: a lazy reader pays for the graph when it walks it); returns 1 in
    // r.graphs and the size of producer_name in r.string_bytes, then closes
    // the handle.
    bool (*open)(const char* path, walk_result& r, std::string& err);
    // Workloads 2 and 3 over bytes already in memory (parse included).
    bool (*walk)(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err);
    // Workloads 4 and 5: open the path with this library's best settings for
    // a one-off read, then walk.
    bool (*open_walk)(const char* path, bool payloads, walk_result& r, std::string& err);
};

// Shared by the two onnxview competitors (walk_onnxview.cpp): workload 1,
// and the opening of workloads 4 and 5 (the hints a one-off reader gives).
bool open_onnxview(const char* path, walk_result& r, std::string& err);
bool open_onnxview_then_walk(const char* path, bool payloads, walk_bytes_fn walk_bytes, walk_result& r,
                             std::string& err);

extern const competitor onnxview_competitor;        // cursors
extern const competitor onnxview_views_competitor;  // views
extern const competitor protozero_competitor;
extern const competitor protozero_checked_competitor;  // with libprotobuf's checks and meaning
extern const competitor protobuf_competitor;        // heap allocation
extern const competitor protobuf_arena_competitor;  // google::protobuf::Arena

// A read-only mapping of a whole file, used by the peers (onnxview uses its
// own mapped_file). hint: an madvise advice, or -1 for none.
class file_map {
public:
    file_map() = default;
    file_map(const file_map&) = delete;
    file_map& operator=(const file_map&) = delete;
    ~file_map();
    bool open(const char* path, int hint, std::string& err);
    const char* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }

private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace bench

#endif  // ONNXVIEW_BENCH_COMMON_HPP
