// Minimal strict command-line parsing for the examples and benches: "--flag", "--key value",
// "--key=value"; bad names or values throw std::invalid_argument with a message naming the flag.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace starfact::support {

/// "a,b,c" -> {"a", "b", "c"}; empty items are dropped.
inline std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::string item;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == ',') {
            if (!item.empty()) out.push_back(item);
            item.clear();
        } else {
            item += text[i];
        }
    }
    return out;
}

/// Comma-separated integers in [lo, hi]; throws std::invalid_argument naming `flag` otherwise.
inline std::vector<int64_t> int_list(const std::string& text, const std::string& flag, int64_t lo, int64_t hi) {
    std::vector<int64_t> out;
    std::string item;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != ',') {
            item += text[i];
            continue;
        }
        size_t used = 0;
        long long x = 0;
        try {
            x = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || x < lo || x > hi)
            throw std::invalid_argument(flag + " needs integers in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                        "] separated by commas (got '" + text + "')");
        out.push_back(x);
        item.clear();
    }
    return out;
}

class Cli {
public:
    Cli(int argc, char** argv) : args_(argv + 1, argv + argc) {}

    bool done() const { return pos_ >= args_.size(); }
    /// Next flag name (with its "--"); a "--key=value" keeps the value for value().
    std::string next() {
        std::string a = args_[pos_++];
        if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "' (flags start with --)");
        const auto eq = a.find('=');
        if (eq != std::string::npos) {
            pending_ = a.substr(eq + 1);
            has_pending_ = true;
            a = a.substr(0, eq);
        }
        flag_ = a;
        return a;
    }
    std::string value() {
        if (has_pending_) {
            has_pending_ = false;
            return pending_;
        }
        if (pos_ >= args_.size()) throw std::invalid_argument(flag_ + " needs a value");
        return args_[pos_++];
    }
    void no_value() const {
        if (has_pending_) throw std::invalid_argument(flag_ + " takes no value");
    }
    int64_t integer(int64_t lo, int64_t hi) {
        const std::string v = value();
        size_t used = 0;
        long long x = 0;
        try {
            x = std::stoll(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v.size() || v.empty())
            throw std::invalid_argument(flag_ + " needs an integer (got '" + v + "')");
        if (x < lo || x > hi)
            throw std::invalid_argument(flag_ + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                        "] (got " + v + ")");
        return x;
    }
    std::string choice(const std::vector<std::string>& allowed) {
        const std::string v = value();
        std::string list;
        for (const auto& a : allowed) {
            if (v == a) return v;
            list += (list.empty() ? "" : ", ") + a;
        }
        throw std::invalid_argument(flag_ + " must be one of " + list + " (got '" + v + "')");
    }
    [[noreturn]] void unknown() const { throw std::invalid_argument("unknown flag " + flag_ + " (see --help)"); }

private:
    std::vector<std::string> args_;
    size_t pos_ = 0;
    std::string flag_, pending_;
    bool has_pending_ = false;
};

}  // namespace starfact::support
