// Internal: edit_options applied while pack_model walks a message: which
// fields it leaves out, and what the root ModelProto gets at its end.
#ifndef ONNXVIEW_SRC_WRITE_EDITS_HPP
#define ONNXVIEW_SRC_WRITE_EDITS_HPP

#include "emitter.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/write.hpp"

namespace onnxview {
namespace detail {

// Whether field f of message m (of type d; `root`: the ModelProto itself)
// is left out: a doc_string when stripping, the producer fields being
// replaced, a metadata_props entry whose key a change names.
bool edit_drops(const edit_options& e, const schema::message_desc& d, bool root, const wire::message& m,
                const wire::field& f) noexcept;

// Whether the walk must enter every message field (doc strings are
// everywhere; shapes sit five levels down; names are in every graph).
inline bool edit_enters_all(const edit_options* e) noexcept {
    return e != nullptr && (e->strip_doc_strings || e->dim_count != 0 || e->rename_count != 0 ||
                            !e->prefix.empty());
}

// The change of dim `axis` of the main-graph input or output `name`, or null.
const dim_change* find_dim_change(const edit_options& e, std::string_view name, std::uint64_t axis) noexcept;

// The content of a TensorShapeProto.Dimension `m` with its value replaced
// by c's: its other fields (denotation, unknown ones) as they were, then
// dim_value or dim_param. Errors: those of m's framing.
error emit_dimension(const dim_change& c, const wire::message& m, emitter& out) noexcept;

// The fields the root ModelProto gets after its own: producer fields and
// the metadata entries set.
void edit_appends(const edit_options& e, emitter& out) noexcept;

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_EDITS_HPP
