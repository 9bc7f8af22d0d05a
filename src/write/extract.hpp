// Internal: edit_options::extract. The selection is computed once, before
// the passes, over views of the model; the walk then asks, field by field,
// which occurrences of the main graph's and the ModelProto's repeated
// fields stay, and re-emits the new graph inputs and outputs at the end of
// the main graph.
#ifndef ONNXVIEW_SRC_WRITE_EXTRACT_HPP
#define ONNXVIEW_SRC_WRITE_EXTRACT_HPP

#include <cstdint>
#include <string_view>
#include <vector>

#include "../io/heap.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/wire.hpp"
#include "onnxview/write.hpp"

namespace onnxview {
namespace detail {

class extraction {
public:
    explicit extraction(const heap& memory) noexcept;

    // Computes what `r` keeps of `model` (a whole ModelProto), filling in
    // r.report. Errors: see extract_request (write.hpp), and those of
    // reading the model.
    error select(std::string_view model, const extract_request& r, const options& o) noexcept;

    // Before each pass: occurrence counts start again.
    void restart() noexcept;
    // Whether occurrence f of m (type d) is left out. Called for every field
    // of the root ModelProto and of the main graph, in order; input and
    // output occurrences are always left out (emitted again, io_field).
    bool drops(const schema::message_desc& d, const wire::message& m, const wire::field& f) noexcept;
    static bool is_main_graph(const schema::message_desc& d, const wire::message& m) noexcept {
        return &d == &schema::msg_GraphProto && m.depth() == 1;
    }
    // The new graph inputs then outputs: the ValueInfoProto occurrence of the
    // main graph each one copies (seen by drops() this pass) and the field
    // number it gets.
    std::size_t io_count() const noexcept { return io_.size(); }
    const wire::field& io_field(std::size_t k) const noexcept { return io_[k].field; }
    std::uint32_t io_number(std::size_t k) const noexcept { return io_[k].number; }

private:
    // Which occurrences of one repeated field stay.
    struct field_keep {
        field_keep(std::uint32_t n, bool r, const heap& memory) noexcept
            : number(n), root(r), keep(heap_allocator<std::uint8_t>(memory)) {}
        std::uint32_t number;
        bool root;  // a ModelProto field, else a main-graph one
        std::vector<std::uint8_t, heap_allocator<std::uint8_t>> keep;
        std::size_t seen = 0;
    };
    struct io_source {
        std::uint32_t source = 0;  // graph.input, output or value_info
        std::size_t index = 0;     // the occurrence of that field
        std::uint32_t number = 0;  // graph.input or graph.output in the result
        wire::field field{};
    };
    field_keep* find(std::uint32_t number, bool root) noexcept;

    heap memory_;
    std::vector<field_keep, heap_allocator<field_keep>> fields_;
    std::vector<io_source, heap_allocator<io_source>> io_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_EXTRACT_HPP
