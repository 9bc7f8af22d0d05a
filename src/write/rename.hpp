// Internal: edit_options::renames applied while pack_model walks the model.
// The walk tells the renamer each message it enters and leaves; the renamer
// keeps what each one is (a graph in the main graph's scope, one of its
// nodes, a training binding, ...) and, for each graph, which changes reach
// it (not shadowed by a declaration of its own or of an enclosing graph),
// so that it can say of each string field whether it is a name to replace.
// On the way it records what check_renames() refuses: a change whose
// old_name the main graph never uses, a new_name already used where the
// change reaches. With edit_options::prefix it keeps, instead of flags per
// change, the names each open subgraph declares (sorted, searched), and the
// model-local functions whose callers' op_type is prefixed too.
#ifndef ONNXVIEW_SRC_WRITE_RENAME_HPP
#define ONNXVIEW_SRC_WRITE_RENAME_HPP

#include <cstdint>
#include <string_view>
#include <vector>

#include "../io/heap.hpp"
#include "../model/function_key.hpp"
#include "emitter.hpp"
#include "onnxview/wire.hpp"
#include "onnxview/write.hpp"

namespace onnxview {
namespace detail {

class renamer {
public:
    // `e` and its changes must outlive the renamer. Memory: a few bytes per
    // change and per open message, and one byte per change per open graph.
    renamer(const edit_options& e, const heap& memory) noexcept;

    // What the list of changes alone refuses: empty names, repeats, chains.
    rename_check check_list() const noexcept;
    // Everything refused, once a pass has walked the whole model.
    rename_check verdict() const noexcept;

    // The walk enters occurrence f of a message field of `parent`, the
    // message it walks; every enter() is followed by one leave(). Errors:
    // those of reading a graph's declarations.
    error enter(const wire::message& parent, const wire::field& f) noexcept;
    void leave() noexcept;

    // The new content of field f of the message being walked (`m`), when f
    // is a value name that a change renames here; else null.
    const std::string_view* replacement(const wire::message& m, const wire::field& f) noexcept;
    // Whether the message being walked has fields replacement() may change.
    bool may_rename() const noexcept;

private:
    enum class role : std::uint8_t {
        other,               // holds no value names of the scope
        model,               // the root ModelProto
        graph,               // a graph in the main graph's scope
        value_info,          // a graph's input, output or value_info
        node,
        attribute,           // of a node in scope: its graphs are subgraphs
        initializer,         // a graph's initializer, or a sparse initializer's values
        sparse_initializer,
        sparse_indices,      // its indices: no value, but compose.add_prefix prefixes their name
        annotation,          // a graph's quantization_annotation
        annotation_entry,    // one of its quant_parameter_tensor_names
        training,            // a TrainingInfoProto
        binding,             // one of its initialization_binding or update_binding entries
    };
    // What a message is, in or out of the main graph's scope: where node
    // names, function names and calls are.
    enum class kind : std::uint8_t { other, graph, node, attribute, function, training };
    struct frame {
        role what = role::other;
        kind is = kind::other;
        bool calls_function = false;  // a node whose op_type names a model-local function
        bool main = false;          // the main graph or one of its own messages
        bool owns_flags = false;    // flags pushed by this frame, popped when it ends
        std::size_t flags = 0;      // the changes in effect: flags_[flags, flags + count)
        std::size_t declared = 0;   // prefix: the scope's declarations start at declared_[declared]
    };


    frame current() const noexcept;
    // Pushes `f`, owning the changes in effect in the graph made of field
    // `number` of `parent`: occurrence `only`, or (null) all of them, as
    // protobuf merges a singular field's. Those are the changes in effect at
    // `outer` less those the graph declares.
    error push_scope(frame f, const wire::message& parent, std::uint32_t number, const wire::field* only,
                     std::size_t outer) noexcept;
    void shadow(std::size_t flags, std::string_view declared) noexcept;
    // Whether a subgraph open around the walk declares `name` (prefix).
    bool declared_inside(std::string_view name) const noexcept;
    const std::string_view* prefixed(const wire::message& m, const wire::field& f) noexcept;
    error read_functions(const wire::message& model) noexcept;
    bool calls_function(const wire::message& parent, const wire::field& node) const noexcept;

    const name_change* changes_;
    std::size_t count_;
    bool joins_;
    std::vector<frame, heap_allocator<frame>> frames_;
    // One byte per change and scope, 1 when the change is in effect; the
    // first `count_` bytes are the model level's (all in effect).
    std::vector<std::uint8_t, heap_allocator<std::uint8_t>> flags_;
    std::vector<std::uint8_t, heap_allocator<std::uint8_t>> used_in_main_;
    std::vector<std::uint64_t, heap_allocator<std::uint64_t>> conflict_at_;  // none: not seen
    std::string_view prefix_;
    std::vector<std::string_view, heap_allocator<std::string_view>> declared_;
    std::vector<function_key, heap_allocator<function_key>> functions_;  // sorted
    bool functions_read_ = false;
    std::vector<char, heap_allocator<char>> buffer_;  // the last prefixed name
    std::string_view replaced_;
    std::uint64_t captured_at_;  // prefix: a reference a subgraph's own name captures
};

// Field f again, its tag as it was, with `content` as its payload.
void emit_renamed(emitter& out, const wire::field& f, std::string_view content) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_RENAME_HPP
