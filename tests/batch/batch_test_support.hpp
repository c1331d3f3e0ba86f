// Shared by the batch tests: temp folders, test images, running the built fieldflow.
#pragma once

#include "run_command.hpp"
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace fieldflow::batch_test {

namespace fs = std::filesystem;

// A fresh folder under the system temp folder, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        static int counter = 0;
        path_ = fs::temp_directory_path() /
                ("ff-batch-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

inline std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Small crops of a sample photo, each different, written as PNG or JPEG.
inline void write_crop(const fs::path& file, int i, int width = 48, int height = 40) {
    static const cv::Mat photo = cv::imread(FF_SAMPLE_IMAGE, cv::IMREAD_COLOR);
    ASSERT_FALSE(photo.empty()) << "cannot read " << FF_SAMPLE_IMAGE;
    const cv::Rect area((i * 37) % (photo.cols - width), (i * 23) % (photo.rows - height), width, height);
    ASSERT_TRUE(cv::imwrite(file.string(), photo(area).clone())) << file;
}

// The bad files of the issue: a corrupt (truncated) JPEG, a zero-byte file, text named .png.
inline void write_bad_files(const fs::path& dir) {
    write_crop(dir / "whole.jpg", 99, 200, 160);
    const std::string jpeg = read_text(dir / "whole.jpg");
    write_text(dir / "corrupt.jpg", jpeg.substr(0, jpeg.size() / 2));
    fs::remove(dir / "whole.jpg");
    write_text(dir / "empty.jpg", "");
    write_text(dir / "notes.png", "this is text, not a PNG\n");
}

struct Output {
    int code = -1;
    std::string text; // stdout and stderr together
};

// Runs the built fieldflow with `args` (shell-quoted), plugins only from --plugin.
inline Output fieldflow(const std::string& args) {
    const std::string command =
        std::string("env -u FIELDFLOW_PLUGIN_PATH ") + FF_FIELDFLOW_BIN + " " + args;
    Output out;
    ff::test::CommandResult r = ff::test::run_command(command);
    out.code = r.exit_code;
    out.text = std::move(r.output);
    return out;
}

// Starts fieldflow in the background (stdout and stderr into `log`); returns its pid.
inline pid_t start_fieldflow(const std::vector<std::string>& args, const fs::path& log) {
    std::vector<std::string> all = {FF_FIELDFLOW_BIN};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::unsetenv("FIELDFLOW_PLUGIN_PATH");
        ::execv(FF_FIELDFLOW_BIN, argv.data());
        ::_exit(127);
    }
    return pid;
}

// Exit code, or 128 + signal.
inline int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline nlohmann::json read_json(const fs::path& file) {
    return nlohmann::json::parse(read_text(file), nullptr, false);
}

// Manifest lines with status "done".
inline size_t done_lines(const fs::path& manifest) {
    std::istringstream in(read_text(manifest));
    size_t n = 0;
    for (std::string line; std::getline(in, line);) n += contains(line, "\"status\":\"done\"");
    return n;
}

} // namespace fieldflow::batch_test
