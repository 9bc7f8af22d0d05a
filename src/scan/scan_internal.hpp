// src/scan/scan_internal.hpp - what the scanner's files share.
#ifndef ONNXVIEW_SRC_SCAN_SCAN_INTERNAL_HPP
#define ONNXVIEW_SRC_SCAN_SCAN_INTERNAL_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "onnxview/scan.hpp"

namespace onnxview {

// Appends a finding to the record and raises its highest severity.
void add_finding(scan_record& r, const char* code, scan_severity s, std::string message, std::string where = {});

// The elements dims ask for, saturating at 2^64-1; false when a dim is
// negative (unknown to the caller).
bool element_product(const std::vector<std::int64_t>& dims, std::uint64_t& out);

}  // namespace onnxview

#endif  // ONNXVIEW_SRC_SCAN_SCAN_INTERNAL_HPP
