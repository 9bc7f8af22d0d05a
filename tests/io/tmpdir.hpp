// Test helper: a fresh directory under /tmp, removed with its contents.
#ifndef ONNXVIEW_TESTS_IO_TMPDIR_HPP
#define ONNXVIEW_TESTS_IO_TMPDIR_HPP

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace onnxview_test {

class tmpdir {
public:
    tmpdir() {
        char tmpl[] = "/tmp/onnxview-io-XXXXXX";
        const char* p = ::mkdtemp(tmpl);
        path_ = p != nullptr ? p : "";
    }
    tmpdir(const tmpdir&) = delete;
    tmpdir& operator=(const tmpdir&) = delete;
    ~tmpdir() {
        if (!path_.empty()) ::nftw(path_.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    static int remove_one(const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }
    std::string path_;
};

inline bool write_file(const std::string& path, const std::string& bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    const bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    ::close(fd);
    return ok;
}

// n bytes where byte i is (i * 7 + i / 256) mod 256: no two pages alike.
inline std::string pattern(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + i / 256) & 0xff);
    return s;
}

}  // namespace onnxview_test

#endif
