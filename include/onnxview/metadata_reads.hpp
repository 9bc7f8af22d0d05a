// onnxview/metadata_reads.hpp - how a mapped model is read from disk when only
// its graph (not its weights) will be read.
//
//   auto f = onnxview::mapped_file::open("net.onnx");
//   onnxview::advise_metadata_reads(*f);        // before the first view is made
//   onnxview::model_view m = onnxview::parse_model(f->data(), f->size());
//
// model_file does this for model_reads::metadata; the benchmark's onnxview
// walks do the same.
//
// Why. A cold page fault under the system's default advice reads the disk's
// whole read-around window (8 MiB on a virtio disk) around the page, so
// touching the header of every ~1 MB tensor of a weights-heavy file reads the
// whole file. Random access everywhere fixes that but turns a metadata-dense
// file (100k nodes in 30 MB) into one synchronous disk read per 4 KiB page.
// The plan below tells the two apart by the model's structure, not its size:
//
//   1. The whole mapping is advised random access: a page fault reads its
//      page and no more.
//   2. One scan reads the tags of the ModelProto's fields and, recursively,
//      of every message field of payload_from bytes or more (graphs, nodes
//      with subgraphs, big tensors: which fields are messages comes from the
//      schema). Length-delimited fields shorter than that are metadata; longer
//      ones that are not messages (raw_data, packed numbers, long strings)
//      are payloads, skipped by their length and never touched.
//   3. While the scan walks through metadata it prefetches ahead of itself
//      (willneed, which starts the reads without waiting for them), in a
//      window that starts at first_window bytes and doubles up to
//      max_window while the metadata continues; skipping a payload resets it.
//      So the views that follow find the metadata in memory, a dense file is
//      read in a few large requests, and at most one window (plus the page of
//      each tensor's header) is read past the end of a metadata run.
//
// Step 2 costs one pass over the top-level tags (about 1 ms for 100k nodes)
// and allocates nothing. None of it pays when the file is already in the
// page cache: advise_metadata_reads then gives no advice at all (a sample of
// pages checked with mincore, resident_samples). Files under whole_below bytes skip steps 1-3 and are
// prefetched whole. Willneed rather than normal advice over the metadata:
// its extent is known only as the scan meets it, and advice per range would
// split the mapping into thousands of kernel areas (one per payload).
// Hints change speed, never results; a malformed model ends the scan where
// it stops being readable, and the views report the error as usual.
#ifndef ONNXVIEW_METADATA_READS_HPP
#define ONNXVIEW_METADATA_READS_HPP

#include <cstdint>
#include <string_view>

#include "onnxview/file.hpp"
#include "onnxview/schema.hpp"

namespace onnxview {

// The sizes of the plan. Defaults measured on bench/cache/meta.onnx and
// weights.onnx (bench/analysis.md, 2026-12-01).
struct metadata_read_limits {
    // A length-delimited field this long or longer is a payload (or, when the
    // schema says it is a message, scanned inside); shorter fields are
    // metadata and prefetched with their neighbours.
    std::uint64_t payload_from = std::uint64_t(16) << 10;
    // The first prefetch of a metadata run: one page, the one its next tag
    // would fault in anyway.
    std::uint64_t first_window = std::uint64_t(4) << 10;
    std::uint64_t max_window = std::uint64_t(2) << 20;
    // Smaller files are prefetched whole: one request, no scan.
    std::uint64_t whole_below = std::uint64_t(4) << 20;
    // Messages nested deeper than this are not scanned (nor prefetched).
    unsigned max_scan_depth = 64;
    // advise_metadata_reads first asks mapped_file::resident with this many
    // sample pages, and advises nothing when they are all in memory: the
    // plan would only cost its scan and its calls (13 ms for 100k nodes),
    // and random access brings nothing when no read reaches the disk. 0:
    // the plan without asking.
    std::uint32_t resident_samples = 16;
    // copy_metadata_pages: files under copy_from bytes get no copies (all
    // their pages mapped cost at most that much); at most max_copy_bytes
    // are copied (then the mapping serves the rest).
    std::uint64_t copy_from = std::uint64_t(64) << 20;
    std::uint64_t max_copy_bytes = std::uint64_t(32) << 20;
};

// Receives the plan's advice, in the order it must be given: each call
// before the scan reads past it. length 0 means to the end of the file.
struct advice_recipient {
    void (*advise)(void* user_data, access_hint hint, std::uint64_t offset, std::uint64_t length) = nullptr;
    void* user_data = nullptr;
};

// The plan for the serialized message `bytes` of type `root` (normally
// schema::msg_ModelProto), given to `to`: either willneed over the whole of
// a file under whole_below, or random over the whole file followed by
// willneed over the metadata ranges as the scan reaches them (ascending,
// never overlapping). Reads tags and lengths only.
void plan_metadata_reads(std::string_view bytes, const schema::message_desc& root, const advice_recipient& to,
                         const metadata_read_limits& limits = {}) noexcept;

// The plan applied to a mapped ModelProto file. Returns true when the file
// was advised random access (read-ahead is then off outside the prefetched
// metadata: turn it back on with file.advise(access_hint::sequential, ...)
// for a payload that will be read whole). False, and nothing advised, for
// storage other than a mapping and for a file whose sampled pages are all
// resident (limits.resident_samples).
bool advise_metadata_reads(const mapped_file& file, const metadata_read_limits& limits = {}) noexcept;

// What copy_metadata_pages did.
struct metadata_copy {
    std::uint64_t bytes = 0;  // copied (0: nothing done)
    bool random = false;      // the file was advised random access (as advise_metadata_reads returns)
};

// Instead of advise_metadata_reads, for a mapped ModelProto file of
// copy_from bytes or more: the pages a metadata walk reads (the plan's
// ranges, and the page of each field head after a payload) are made private
// copies (page_copies, file.hpp) before any view reads them. A file not
// in memory (resident_samples; 0: taken as not in memory) is first advised
// random access and each range read ahead before its copy, as in the plan. Why: Linux
// maps the whole cached folio (up to 2 MiB) around each byte a read fault
// touches, so reading the header of every tensor of a weights file maps
// the file whole (1 GiB resident for keys() of a 1.5 GB model); with the
// copies, one page per tensor header (6 MB). Costs one scan and one system
// call per range (about 15 us per tensor). Stops, leaving the rest to the
// mapping, at max_copy_bytes or at the system's first refusal. Smaller
// files and other storage: nothing done.
metadata_copy copy_metadata_pages(const mapped_file& file, const metadata_read_limits& limits = {}) noexcept;

// For a file supplied on demand (mapped_file::supplied: a remote file):
// ensures every byte that views, cursors, verify(), the checker and the
// printers read of the model, except the contents of its tensors (a
// TensorProto's raw_data, string_data element, float_data or double_data of
// payload_from bytes or more, outside sparse tensors), which
// model_file::tensor() fetches when asked. A group (not in ONNX) ends what
// is known of its message: the rest of it is fetched. Malformed bytes end
// the walk of their message (the views read no further there). Through file.ensure, in ascending order, one call per field head
// and per metadata body, so the supplier sees the model's layout and may
// fetch ahead of it. A file under whole_below bytes is ensured in one call.
// Returns the first error of file.ensure. For other
// storage: nothing to fetch, ok.
error fetch_metadata(const mapped_file& file, const metadata_read_limits& limits = {}) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_METADATA_READS_HPP
