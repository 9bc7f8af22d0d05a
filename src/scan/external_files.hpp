// src/scan/external_files.hpp - a model's external data as `onnxview scan`
// reports it: per location its tensors, declared bytes, whether the resolver
// opened it, its size and whether every extent was inside it; and a finding
// for each refusal (each the resolver's own: absolute, escaping, hard-linked,
// missing, out of range ...), each key given twice, each overlap.
#ifndef ONNXVIEW_SRC_SCAN_EXTERNAL_FILES_HPP
#define ONNXVIEW_SRC_SCAN_EXTERNAL_FILES_HPP

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/model_file.hpp"
#include "onnxview/scan.hpp"
#include "scan_internal.hpp"

namespace onnxview {
namespace detail {

class external_inventory {
public:
    external_inventory(model_file& mf, scan_record& r) : mf_(mf), r_(r) {}

    // One EXTERNAL tensor, `where` its path: its payload bytes when the
    // resolver gave them (mapped, not read), empty otherwise.
    std::string_view add(const tensor_view& t, const std::string& where);
    // The overlaps, the digests (with `digests`), and the files into the
    // record's external_files.
    void finish(bool digests);

private:
    struct extent {
        std::uint64_t begin, end;
        std::string where;
    };
    struct use_of_file {
        scan_external_file file;
        std::vector<extent> extents;
        const mapped_file* mapped = nullptr;
    };

    // The length an external tensor's entries give, else its dims x element
    // width: what it claims, whether or not the file holds it.
    static std::uint64_t declared_length(const tensor_view& t);
    // The finding of a tensor the resolver refused.
    void refused(error e, const tensor_view& t, std::string_view location, const std::string& where, use_of_file& use);

    model_file& mf_;
    scan_record& r_;
    std::map<std::string, use_of_file> uses_;
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_SCAN_EXTERNAL_FILES_HPP
