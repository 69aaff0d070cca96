// tformer: the command-line face of the engine.
//
//   tformer translate -m MODEL.tfm [--beam N] [--threads N] [--max-length N] [--nbest N] [--scores]
//   tformer info MODEL.tfm
//   tformer bench -m MODEL.tfm -i FILE [--beam N] [--threads N] [--json FILE]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tformer/translator.h"

namespace {

using Clock = std::chrono::steady_clock;

const char* kUsage =
    "usage:\n"
    "  tformer translate -m MODEL.tfm [--beam N] [--threads N] [--max-length N] [--nbest N] [--scores]\n"
    "                    [--length-penalty X] [--no-split] [--backend xnnpack|reference]\n"
    "      Reads UTF-8 lines on stdin, writes one translation per line on stdout.\n"
    "      With --nbest N, writes N lines per input: INDEX ||| TEXT ||| SCORE.\n"
    "  tformer info MODEL.tfm\n"
    "      Prints the architecture and the tensor table.\n"
    "  tformer bench -m MODEL.tfm -i FILE [--beam N] [--threads N] [--batch-tokens N] [--json OUT]\n"
    "      Translates FILE's lines and prints sentences/s, target tokens/s, latency and memory.\n";

struct Args {
  std::string command, model, input, json;
  std::vector<std::string> positional;
  tformer::TranslateOptions options;
  tformer::TranslatorConfig config;
  bool scores = false;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << "tformer: " << msg << "\n" << kUsage;
  std::exit(2);
}

int to_int(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return n;
  } catch (const std::exception&) {
    usage_error(flag + " needs an integer, got '" + v + "'");
  }
}

float to_float(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    const float x = std::stof(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return x;
  } catch (const std::exception&) {
    usage_error(flag + " needs a number, got '" + v + "'");
  }
}

Args parse(int argc, char** argv) {
  if (argc < 2) usage_error("no command");
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(f + " needs a value");
      return argv[++i];
    };
    if (f == "-m" || f == "--model") a.model = value();
    else if (f == "-i" || f == "--input") a.input = value();
    else if (f == "--json") a.json = value();
    else if (f == "--beam") a.options.beam_size = to_int(f, value());
    else if (f == "--nbest") a.options.nbest = to_int(f, value());
    else if (f == "--threads") a.config.threads = to_int(f, value());
    else if (f == "--max-length") a.options.max_length = to_int(f, value());
    else if (f == "--length-penalty") a.options.length_penalty = to_float(f, value());
    else if (f == "--batch-tokens") a.options.max_batch_tokens = size_t(std::max(1, to_int(f, value())));
    else if (f == "--scores") a.scores = true;
    else if (f == "--no-split") a.options.split_sentences = false;
    else if (f == "--backend") {
      const std::string b = value();
      if (b == "xnnpack") a.config.backend = tformer::BackendKind::kXnnpack;
      else if (b == "reference") a.config.backend = tformer::BackendKind::kReference;
      else usage_error("unknown backend '" + b + "'");
    } else if (f == "-h" || f == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!f.empty() && f[0] == '-') usage_error("unknown option " + f);
    else a.positional.push_back(f);
  }
  return a;
}

std::vector<std::string> read_lines(std::istream& in) {
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// n-th best text of a paragraph: each sentence's n-th hypothesis (or its last one).
std::string nth_text(const tformer::Translation& t, size_t n, float* score) {
  std::string text;
  *score = 0.f;
  for (size_t s = 0; s < t.sentences.size(); ++s) {
    const auto& hyps = t.sentences[s].hypotheses;
    const auto& h = hyps[std::min(n, hyps.size() - 1)];
    if (s) text += " ";
    text += h.text;
    *score += h.score;
  }
  return text;
}

int cmd_translate(const Args& a) {
  if (a.model.empty()) usage_error("translate needs -m MODEL.tfm");
  tformer::Translator translator(a.model, a.config);
  const std::vector<std::string> lines = read_lines(std::cin);
  std::vector<tformer::Translation> out;
  try {
    out = translator.translate(lines, a.options);
  } catch (const tformer::Error& e) {
    // Name the line: the engine numbers its inputs from 1, as lines are.
    std::string msg = e.what();
    const std::string prefix = "input text ";
    if (msg.rfind(prefix, 0) == 0) msg = "line " + msg.substr(prefix.size());
    throw tformer::Error(msg);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (a.options.nbest > 1) {
      for (int n = 0; n < a.options.nbest; ++n) {
        float score;
        const std::string text = nth_text(out[i], size_t(n), &score);
        std::cout << i << " ||| " << text << " ||| " << score << "\n";
      }
    } else if (a.scores) {
      float score;
      const std::string text = nth_text(out[i], 0, &score);
      std::cout << score << "\t" << text << "\n";
    } else {
      std::cout << out[i].text << "\n";
    }
  }
  std::cout.flush();
  return 0;
}

int cmd_info(const Args& a) {
  const std::string path = !a.positional.empty() ? a.positional[0] : a.model;
  if (path.empty()) usage_error("info needs MODEL.tfm");
  tformer::Translator translator(path);
  const tformer::ModelInfo& info = translator.info();
  std::printf("model:      %s (%.2f MB)\n", path.c_str(), double(info.file_bytes) / 1e6);
  std::printf("shape:      d_model %d, heads %d, ffn %d, encoder %d layers, decoder %d layers, vocab %d\n",
              info.d_model, info.heads, info.ffn_dim, info.encoder_layers, info.decoder_layers, info.vocab_size);
  std::printf("parameters: %llu\n", static_cast<unsigned long long>(info.parameters));
  std::printf("config:     %s\n", info.config_json.c_str());
  std::printf("metadata:   %s\n", info.metadata_json.c_str());
  std::map<std::string, std::pair<size_t, uint64_t>> by_dtype;  // tensors, bytes
  uint64_t total = 0;
  for (const auto& t : info.tensors) {
    by_dtype[t.dtype].first += 1;
    by_dtype[t.dtype].second += t.bytes;
    total += t.bytes;
  }
  std::printf("bytes by dtype:");
  for (const auto& [dtype, n] : by_dtype) std::printf(" %s %.2f MB;", dtype.c_str(), double(n.second) / 1e6);
  std::printf("\n");
  for (const auto& [dtype, n] : by_dtype)
    std::printf("  %-4s %5zu tensors %12llu bytes (%5.1f%%)\n", dtype.c_str(), n.first,
                static_cast<unsigned long long>(n.second), total ? 100.0 * double(n.second) / double(total) : 0.0);
  std::printf("  all  %5zu tensors %12llu bytes\n", info.tensors.size(), static_cast<unsigned long long>(total));
  std::printf("\n%-48s %-5s %-18s %12s\n", "tensor", "dtype", "shape", "bytes");
  for (const auto& t : info.tensors) {
    std::string shape;
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "x" : "") + std::to_string(t.shape[i]);
    std::printf("%-48s %-5s %-18s %12llu\n", t.name.c_str(), t.dtype.c_str(), shape.c_str(),
                static_cast<unsigned long long>(t.bytes));
  }
  return 0;
}

int cmd_bench(const Args& a) {
  if (a.model.empty() || a.input.empty()) usage_error("bench needs -m MODEL.tfm and -i FILE");
  std::ifstream in(a.input);
  if (!in) throw tformer::Error("cannot open input file '" + a.input + "'");
  std::vector<std::string> lines = read_lines(in);
  lines.erase(std::remove_if(lines.begin(), lines.end(), [](const std::string& l) { return l.empty(); }), lines.end());
  if (lines.empty()) throw tformer::Error("input file '" + a.input + "' has no non-empty lines");

  auto t0 = Clock::now();
  tformer::Translator translator(a.model, a.config);
  const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  // Warm-up on a few sentences (first-touch allocations, caches).
  translator.translate({lines.begin(), lines.begin() + long(std::min<size_t>(4, lines.size()))}, a.options);

  t0 = Clock::now();
  const auto out = translator.translate(lines, a.options);
  const double batch_s = std::chrono::duration<double>(Clock::now() - t0).count();
  size_t target_tokens = 0, sentences = 0;
  for (const auto& t : out)
    for (const auto& s : t.sentences) {
      target_tokens += s.hypotheses[0].tokens.size();
      ++sentences;
    }

  // Latency: one request per line, as an interactive page would send them.
  const size_t latency_lines = std::min<size_t>(lines.size(), 100);
  std::vector<double> latencies;
  for (size_t i = 0; i < latency_lines; ++i) {
    const auto s = Clock::now();
    translator.translate({lines[i]}, a.options);
    latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
  }
  std::sort(latencies.begin(), latencies.end());
  const double median_ms = latencies[latencies.size() / 2];
  const double p90_ms = latencies[std::min(latencies.size() - 1, latencies.size() * 9 / 10)];

  std::printf("model %s, backend %s, %d thread(s), beam %d\n", a.model.c_str(), translator.backend_name().c_str(),
              translator.threads(), a.options.beam_size);
  std::printf("load:        %.1f ms\n", load_ms);
  std::printf("batch:       %zu lines (%zu sentences) in %.3f s: %.1f sentences/s, %.1f target tokens/s, %.2f ms/sentence\n",
              lines.size(), sentences, batch_s, double(sentences) / batch_s, double(target_tokens) / batch_s,
              1000.0 * batch_s / double(sentences));
  std::printf("latency:     %zu single-line requests: median %.2f ms, p90 %.2f ms\n", latency_lines, median_ms, p90_ms);
  std::printf("peak memory: %.1f MB (resident)\n", peak_rss_mb());
  if (!a.json.empty()) {
    std::ofstream js(a.json);
    js << "{\"model\":\"" << a.model << "\",\"backend\":\"" << translator.backend_name()
       << "\",\"threads\":" << translator.threads() << ",\"beam\":" << a.options.beam_size
       << ",\"lines\":" << lines.size() << ",\"sentences\":" << sentences << ",\"target_tokens\":" << target_tokens
       << ",\"seconds\":" << batch_s << ",\"sentences_per_s\":" << double(sentences) / batch_s
       << ",\"tokens_per_s\":" << double(target_tokens) / batch_s << ",\"ms_per_sentence\":" << 1000.0 * batch_s / double(sentences)
       << ",\"latency_median_ms\":" << median_ms << ",\"latency_p90_ms\":" << p90_ms << ",\"load_ms\":" << load_ms
       << ",\"peak_rss_mb\":" << peak_rss_mb() << "}\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const Args a = parse(argc, argv);
  try {
    if (a.command == "translate") return cmd_translate(a);
    if (a.command == "info") return cmd_info(a);
    if (a.command == "bench") return cmd_bench(a);
    if (a.command == "-h" || a.command == "--help" || a.command == "help") {
      std::cout << kUsage;
      return 0;
    }
    usage_error("unknown command '" + a.command + "'");
  } catch (const tformer::Error& e) {
    std::cerr << "tformer: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tformer: internal error: " << e.what() << "\n";
    return 1;
  }
}
