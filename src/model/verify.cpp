// verify(): the one whole-tree validation (src/model/schema_walk.cpp), also
// what the printers run before writing anything.
#include "onnxview/verify.hpp"

#include "schema_walk.hpp"

namespace onnxview {

error verify(const void* data, std::size_t size, const schema::message_desc& root,
             const options& opts) noexcept {
    return schema_walk::validate_tree(static_cast<const char*>(data), size, root, opts.max_message_depth,
                                      opts.release, opts.verified, opts.verified_user);
}

}  // namespace onnxview
