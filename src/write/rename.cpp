// edit_options::renames applied during the walk (rename.hpp).
#include "rename.hpp"

#include <algorithm>

#include "onnxview/model.hpp"

namespace onnxview {

const char* rename_problem_message(rename_problem p) noexcept {
    switch (p) {
    case rename_problem::none: return "can be made";
    case rename_problem::empty_old_name: return "renames the empty name, which marks an absent optional input";
    case rename_problem::empty_new_name: return "gives an empty name";
    case rename_problem::old_name_repeated: return "renames a name that another change renames too";
    case rename_problem::new_name_repeated: return "gives a name that another change gives too";
    case rename_problem::chained:
        return "gives a name that another change renames (changes apply at once: chains and swaps are refused)";
    case rename_problem::not_in_main_graph: return "renames a name that is not a value name of the main graph";
    case rename_problem::new_name_in_use:
        return "gives a name already used in the main graph, or in a subgraph or training graph the change "
               "reaches (its references would be captured)";
    }
    return "unknown rename problem";
}

namespace detail {

namespace {

constexpr std::uint64_t not_seen = ~std::uint64_t(0);

}  // namespace

renamer::renamer(const edit_options& e, const heap& memory) noexcept
    : changes_(e.renames),
      count_(e.renames == nullptr ? 0 : e.rename_count),
      joins_(e.renames_join),
      frames_(heap_allocator<frame>(memory)),
      flags_(count_, 1, heap_allocator<std::uint8_t>(memory)),
      used_in_main_(count_, 0, heap_allocator<std::uint8_t>(memory)),
      conflict_at_(count_, not_seen, heap_allocator<std::uint64_t>(memory)),
      prefix_(e.prefix),
      declared_(heap_allocator<std::string_view>(memory)),
      functions_(heap_allocator<function_key>(memory)),
      buffer_(heap_allocator<char>(memory)),
      captured_at_(not_seen) {}

rename_check renamer::check_list() const noexcept {
    rename_check c;
    for (std::size_t i = 0; i < count_ && c.problem == rename_problem::none; ++i) {
        c.change = i;
        if (changes_[i].old_name.empty()) c.problem = rename_problem::empty_old_name;
        else if (changes_[i].new_name.empty()) c.problem = rename_problem::empty_new_name;
        for (std::size_t j = 0; j < count_ && c.problem == rename_problem::none; ++j) {
            c.other = j;
            if (j < i && changes_[j].old_name == changes_[i].old_name) c.problem = rename_problem::old_name_repeated;
            else if (j < i && !joins_ && changes_[j].new_name == changes_[i].new_name)
                c.problem = rename_problem::new_name_repeated;
            else if (j != i && changes_[j].old_name == changes_[i].new_name) c.problem = rename_problem::chained;
        }
    }
    if (c.problem == rename_problem::none) c = rename_check{};
    return c;
}

rename_check renamer::verdict() const noexcept {
    rename_check c = check_list();
    for (std::size_t i = 0; i < count_ && c.problem == rename_problem::none; ++i) {
        c.change = i;
        if (!used_in_main_[i]) {
            c.problem = rename_problem::not_in_main_graph;
        } else if (conflict_at_[i] != not_seen) {
            c.problem = rename_problem::new_name_in_use;
            c.offset = conflict_at_[i];
        }
    }
    if (c.problem == rename_problem::none && captured_at_ != not_seen) {
        c.problem = rename_problem::new_name_in_use;
        c.offset = captured_at_;
    }
    if (c.problem == rename_problem::none) c = rename_check{};
    return c;
}

renamer::frame renamer::current() const noexcept {
    if (!frames_.empty()) return frames_.back();
    frame root;
    root.what = role::model;
    return root;
}

void renamer::shadow(std::size_t flags, std::string_view declared) noexcept {
    if (!prefix_.empty()) declared_.push_back(declared);
    for (std::size_t i = 0; i < count_; ++i)
        if (changes_[i].old_name == declared) flags_[flags + i] = 0;
}

error renamer::push_scope(frame f, const wire::message& parent, std::uint32_t number, const wire::field* only,
                          std::size_t outer) noexcept {
    f.owns_flags = true;
    f.flags = flags_.size();
    f.declared = declared_.size();
    for (std::size_t i = 0; i < count_; ++i) flags_.push_back(flags_[outer + i]);
    frames_.push_back(f);
    // A graph's declarations (SSA): its inputs, initializers, sparse
    // initializers and node outputs, wherever they sit in it.
    auto declare = [&](const wire::field& occurrence) -> error {
        const result<wire::message> m = parent.child(occurrence);
        if (!m) return m.err();
        const graph_view graph{m};
        for (const value_info_view& v : graph.input()) shadow(f.flags, v.name());
        for (const tensor_view& t : graph.initializer()) shadow(f.flags, t.name());
        for (const sparse_tensor_view& s : graph.sparse_initializer()) shadow(f.flags, s.values().name());
        for (const node_view& n : graph.node())
            for (std::string_view out : n.output()) shadow(f.flags, out);
        return error();
    };
    if (only != nullptr) {
        if (error e = declare(*only)) return e;
    } else {
        wire::reader r(parent.base(), parent.begin(), parent.end(), parent.depth(), parent.max_depth());
        wire::field occurrence;
        while (!r.at_end()) {
            if (error e = r.next(occurrence)) return e;
            if (occurrence.number == number && occurrence.type == wire::wire_type::length_delimited)
                if (error e = declare(occurrence)) return e;
        }
    }
    std::sort(declared_.begin() + static_cast<std::ptrdiff_t>(f.declared), declared_.end());
    return error();
}

bool renamer::declared_inside(std::string_view name) const noexcept {
    // Each scope's declarations run from its frame's `declared` to the next
    // scope's (or the end).
    std::size_t end = declared_.size();
    for (std::size_t i = frames_.size(); i-- > 0;) {
        if (!frames_[i].owns_flags) continue;
        const auto first = declared_.begin() + static_cast<std::ptrdiff_t>(frames_[i].declared);
        const auto last = declared_.begin() + static_cast<std::ptrdiff_t>(end);
        if (std::binary_search(first, last, name)) return true;
        end = frames_[i].declared;
    }
    return false;
}

error renamer::read_functions(const wire::message& model) noexcept {
    functions_read_ = true;
    for (const function_view& fn : model_view(result<wire::message>(model)).functions()) {
        if (!fn.ok()) return fn.err();
        functions_.push_back({fn.domain(), fn.name(), fn.overload()});
    }
    std::sort(functions_.begin(), functions_.end());
    return error();
}

bool renamer::calls_function(const wire::message& parent, const wire::field& node) const noexcept {
    if (functions_.empty()) return false;
    const result<wire::message> m = parent.child(node);
    if (!m) return false;
    const node_view n(m);
    return std::binary_search(functions_.begin(), functions_.end(),
                              function_key{n.domain(), n.op_type(), n.overload()});
}

error renamer::enter(const wire::message& parent, const wire::field& f) noexcept {
    const frame at = current();
    frame next;
    next.flags = at.flags;
    next.main = at.main;
    const std::uint32_t n = f.number;
    if (!prefix_.empty()) {
        if (at.what == role::model && !functions_read_)
            if (error e = read_functions(parent)) return e;
        switch (at.what == role::model ? kind::other : at.is) {
        case kind::other:
            if (at.what == role::model)
                next.is = n == model_view::field::graph           ? kind::graph
                          : n == model_view::field::functions     ? kind::function
                          : n == model_view::field::training_info ? kind::training
                                                                  : kind::other;
            break;
        case kind::graph:
            if (n == graph_view::field::node) next.is = kind::node;
            break;
        case kind::function:
            if (n == function_view::field::node) next.is = kind::node;
            break;
        case kind::node:
            if (n == node_view::field::attribute) next.is = kind::attribute;
            break;
        case kind::attribute:
            if (n == attribute_view::field::g || n == attribute_view::field::graphs) next.is = kind::graph;
            break;
        case kind::training:
            if (n == training_info_view::field::initialization || n == training_info_view::field::algorithm)
                next.is = kind::graph;
            break;
        }
        if (next.is == kind::node) next.calls_function = calls_function(parent, f);
    }
    switch (at.what) {
    case role::model:
        next.flags = 0;
        if (n == model_view::field::graph) {
            next.what = role::graph;  // every change is in effect in the main graph
            next.main = true;
        } else if (n == model_view::field::training_info) {
            next.what = role::training;
        }
        break;
    case role::graph:
        if (n == graph_view::field::input || n == graph_view::field::output || n == graph_view::field::value_info)
            next.what = role::value_info;
        else if (n == graph_view::field::initializer) next.what = role::initializer;
        else if (n == graph_view::field::sparse_initializer) next.what = role::sparse_initializer;
        else if (n == graph_view::field::node) next.what = role::node;
        else if (n == graph_view::field::quantization_annotation) next.what = role::annotation;
        break;
    case role::node:
        if (n == node_view::field::attribute) next.what = role::attribute;
        break;
    case role::attribute:
        if (n == attribute_view::field::g || n == attribute_view::field::graphs) {
            next.what = role::graph;
            next.main = false;
            return push_scope(next, parent, n, n == attribute_view::field::graphs ? &f : nullptr, at.flags);
        }
        break;
    case role::sparse_initializer:
        if (n == sparse_tensor_view::field::values) next.what = role::initializer;
        else if (n == sparse_tensor_view::field::indices) next.what = role::sparse_indices;
        break;
    case role::annotation:
        if (n == tensor_annotation_view::field::quant_parameter_tensor_names) next.what = role::annotation_entry;
        break;
    case role::training:
        if (n == training_info_view::field::initialization || n == training_info_view::field::algorithm) {
            next.what = role::graph;
            return push_scope(next, parent, n, nullptr, 0);
        }
        // A binding's value names a value of the graph it binds:
        // initialization's for initialization_binding, algorithm's for
        // update_binding.
        if (n == training_info_view::field::initialization_binding) {
            next.what = role::binding;
            return push_scope(next, parent, training_info_view::field::initialization, nullptr, 0);
        }
        if (n == training_info_view::field::update_binding) {
            next.what = role::binding;
            return push_scope(next, parent, training_info_view::field::algorithm, nullptr, 0);
        }
        break;
    default:
        break;
    }
    frames_.push_back(next);
    return error();
}

void renamer::leave() noexcept {
    if (frames_.back().owns_flags) {
        flags_.resize(frames_.back().flags);
        declared_.resize(frames_.back().declared);
    }
    frames_.pop_back();
}

bool renamer::may_rename() const noexcept {
    const frame at = current();
    const role r = at.what;
    const bool names = r == role::value_info || r == role::node || r == role::initializer || r == role::annotation ||
                       r == role::annotation_entry || r == role::binding;
    if (!prefix_.empty())
        return names || r == role::sparse_indices || at.is == kind::node || at.is == kind::function;
    return count_ != 0 && names;
}

namespace {

// Whether field n of a message in role `what` holds a value name.
template <class Role>
bool is_value_name(Role what, std::uint32_t n) noexcept {
    switch (what) {
    case Role::value_info: return n == value_info_view::field::name;
    case Role::node: return n == node_view::field::input || n == node_view::field::output;
    case Role::initializer: return n == tensor_view::field::name;
    case Role::annotation: return n == tensor_annotation_view::field::tensor_name;
    case Role::annotation_entry: return n == string_entry_view::field::value;
    case Role::binding: return n == string_entry_view::field::key || n == string_entry_view::field::value;
    default: return false;
    }
}

}  // namespace

const std::string_view* renamer::prefixed(const wire::message& m, const wire::field& f) noexcept {
    const frame at = current();
    const std::uint32_t n = f.number;
    const std::string_view s = f.bytes();
    if (s.empty()) return nullptr;  // an absent optional input, an unnamed node
    bool prefix = false, outer_reference = false;
    if (is_value_name(at.what, n)) {
        // A binding's key names an initializer of the main graph.
        const bool main = at.main || (at.what == role::binding && n == string_entry_view::field::key);
        prefix = main || !declared_inside(s);
        outer_reference = prefix && !main;
    } else if (at.what == role::sparse_indices) {
        prefix = at.main && n == tensor_view::field::name;
    } else if (at.is == kind::node) {
        prefix = (n == node_view::field::name && at.main && at.what == role::node) ||
                 (n == node_view::field::op_type && at.calls_function);
    } else if (at.is == kind::function) {
        prefix = n == function_view::field::name;
    }
    if (!prefix) return nullptr;
    buffer_.assign(prefix_.begin(), prefix_.end());
    buffer_.insert(buffer_.end(), s.begin(), s.end());
    replaced_ = std::string_view(buffer_.data(), buffer_.size());
    if (outer_reference && captured_at_ == not_seen && declared_inside(replaced_)) captured_at_ = m.offset_of(f.tag);
    return &replaced_;
}

const std::string_view* renamer::replacement(const wire::message& m, const wire::field& f) noexcept {
    if (f.type != wire::wire_type::length_delimited) return nullptr;
    if (!prefix_.empty()) return prefixed(m, f);
    if (count_ == 0) return nullptr;
    const frame at = current();
    std::size_t flags = at.flags;
    const std::uint32_t n = f.number;
    if (!is_value_name(at.what, n)) return nullptr;
    // A binding's key names an initializer of the main graph.
    if (at.what == role::binding && n == string_entry_view::field::key) flags = 0;
    const std::string_view s = f.bytes();
    const std::string_view* found = nullptr;
    for (std::size_t i = 0; i < count_; ++i) {
        if (!flags_[flags + i]) continue;
        if (s == changes_[i].old_name) {
            if (found == nullptr) found = &changes_[i].new_name;
            if (at.main) used_in_main_[i] = 1;
        }
        if (s == changes_[i].new_name && conflict_at_[i] == not_seen) conflict_at_[i] = m.offset_of(f.tag);
    }
    return found;
}

void emit_renamed(emitter& out, const wire::field& f, std::string_view content) noexcept {
    const char* tag_end = f.tag;
    std::uint32_t number;
    wire::wire_type type;
    (void)wire::decode_tag(tag_end, f.payload, number, type);  // the reader decoded it already
    out.bytes(f.tag, static_cast<std::uint64_t>(tag_end - f.tag));
    out.varint(content.size());
    out.bytes(content.data(), content.size());
}

}  // namespace detail
}  // namespace onnxview
