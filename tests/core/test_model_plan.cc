// The plan an external backend (WebGPU) computes the encoder and the output projection from
// (Translator::plan(), tformer/model_plan.h): for every fixture it names tensors the file has, in
// the shapes it states, and the encoder it describes, run here by a plain interpreter of the plan
// over Translator::tensor_floats() (what WebGPU uploads), gives the PyTorch reference's encoder
// output. The interpreter knows no tensor name and no config key: all it knows is the plan.
#include <catch.hpp>

#include <cmath>
#include <set>

#include "fixtures.h"
#include "tformer/translator.h"

using namespace tformer;

namespace {

struct Rows {
  size_t n = 0, width = 0;
  std::vector<double> v;
  Rows(size_t rows, size_t w) : n(rows), width(w), v(rows * w) {}
  double* row(size_t r) { return &v[r * width]; }
  const double* row(size_t r) const { return &v[r * width]; }
};

std::vector<float> floats(const Translator& t, const std::string& name) {
  const TensorFloats f = t.tensor_floats(name);
  return std::vector<float>(f.data, f.data + f.size);
}

// y = x W^T + b with the plan's weights stacked row after row.
Rows linear(const Translator& t, const LinearPlan& p, const Rows& x) {
  std::vector<float> w, b;
  for (const std::string& name : p.weights) {
    const std::vector<float> part = floats(t, name);
    w.insert(w.end(), part.begin(), part.end());
  }
  for (const std::string& name : p.biases) {
    const std::vector<float> part = floats(t, name);
    b.insert(b.end(), part.begin(), part.end());
  }
  REQUIRE(w.size() == p.in * p.out);
  REQUIRE((b.empty() || b.size() == p.out));
  REQUIRE(x.width == p.in);
  Rows y(x.n, p.out);
  for (size_t r = 0; r < x.n; ++r)
    for (size_t o = 0; o < p.out; ++o) {
      double s = b.empty() ? 0.0 : b[o];
      for (size_t i = 0; i < p.in; ++i) s += x.row(r)[i] * w[o * p.in + i];
      y.row(r)[o] = s;
    }
  return y;
}

Rows layer_norm(const Translator& t, const NormPlan& p, const Rows& x) {
  const std::vector<float> g = floats(t, p.weight), b = floats(t, p.bias);
  REQUIRE(g.size() == x.width);
  Rows y(x.n, x.width);
  for (size_t r = 0; r < x.n; ++r) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < x.width; ++i) mean += x.row(r)[i];
    mean /= double(x.width);
    for (size_t i = 0; i < x.width; ++i) var += (x.row(r)[i] - mean) * (x.row(r)[i] - mean);
    var /= double(x.width);
    for (size_t i = 0; i < x.width; ++i)
      y.row(r)[i] = (x.row(r)[i] - mean) / std::sqrt(var + double(p.eps)) * g[i] + b[i];
  }
  return y;
}

// One sentence's self-attention: q [n, d], k and v [n, d] given as column offsets into rows.
Rows attention(const Rows& q, size_t q_at, const Rows& kv, size_t k_at, size_t v_at, int heads, size_t d) {
  const size_t n = q.n, dh = d / size_t(heads);
  Rows out(n, d);
  for (int h = 0; h < heads; ++h)
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> s(n);
      double m = -1e300, z = 0;
      for (size_t j = 0; j < n; ++j) {
        double dot = 0;
        for (size_t c = 0; c < dh; ++c) dot += q.row(i)[q_at + h * dh + c] * kv.row(j)[k_at + h * dh + c];
        s[j] = dot / std::sqrt(double(dh));
        m = std::max(m, s[j]);
      }
      for (size_t j = 0; j < n; ++j) z += (s[j] = std::exp(s[j] - m));
      for (size_t c = 0; c < dh; ++c) {
        double acc = 0;
        for (size_t j = 0; j < n; ++j) acc += s[j] / z * kv.row(j)[v_at + h * dh + c];
        out.row(i)[h * dh + c] = acc;
      }
    }
  return out;
}

Rows add(Rows a, const Rows& b) {
  for (size_t i = 0; i < a.v.size(); ++i) a.v[i] += b.v[i];
  return a;
}

// The encoder of one sentence as the plan describes it.
Rows run_encoder(const Translator& t, const ModelPlan& plan, const std::vector<int>& ids) {
  const size_t d = size_t(plan.d_model), n = ids.size();
  const std::vector<float> table = floats(t, plan.source_embedding);
  const std::vector<float>& positions = t.positions();
  Rows x(n, d);
  for (size_t r = 0; r < n; ++r)
    for (size_t i = 0; i < d; ++i)
      x.row(r)[i] = double(table[size_t(ids[r]) * d + i]) * plan.embedding_scale + positions[r * d + i];
  for (const EncoderLayerPlan& l : plan.encoder_layers) {
    const bool pre = l.norm == "pre";
    auto sublayer = [&](const NormPlan& norm, auto f) {
      if (pre) {
        x = add(x, f(layer_norm(t, norm, x), x));
      } else {
        x = layer_norm(t, norm, add(x, f(x, x)));
      }
    };
    sublayer(l.self_attention_norm, [&](const Rows& in, const Rows& raw) {
      if (l.raw_self_kv)
        return linear(t, l.o, attention(linear(t, l.q, in), 0, linear(t, l.kv, raw), 0, d, plan.heads, d));
      const Rows qkv = linear(t, l.qkv, in);
      return linear(t, l.o, attention(qkv, 0, qkv, d, 2 * d, plan.heads, d));
    });
    sublayer(l.ffn_norm, [&](const Rows& in, const Rows&) {
      Rows h = linear(t, l.ffn_w1, in);
      for (double& v : h.v) v = l.activation == "swish" ? v / (1 + std::exp(-v)) : std::max(v, 0.0);
      return linear(t, l.ffn_w2, h);
    });
  }
  if (!plan.encoder_final_norm.weight.empty()) x = layer_norm(t, plan.encoder_final_norm, x);
  return x;
}

}  // namespace

TEST_CASE("the plan names the file's tensors in the shapes it states", "[plan]") {
  for (const std::string& variant : testing::fixture_variants()) {
    CAPTURE(variant);
    const Translator t(testing::fixture_path(variant, "model.tfm"));
    const ModelPlan plan = t.plan();
    const ModelInfo& info = t.info();
    std::set<std::string> names;
    for (const TensorInfo& tensor : info.tensors) names.insert(tensor.name);
    auto check_linear = [&](const LinearPlan& p, size_t in, size_t out) {
      CHECK(p.in == in);
      CHECK(p.out == out);
      REQUIRE(!p.weights.empty());
      CHECK((p.biases.empty() || p.biases.size() == p.weights.size()));
      for (const std::string& n : p.weights) CHECK(t.tensor_floats(n).size == in * out / p.weights.size());
      for (const std::string& n : p.biases) CHECK(t.tensor_floats(n).size == out / p.weights.size());
    };
    const size_t d = size_t(info.d_model), ffn = size_t(info.ffn_dim), vocab = size_t(info.vocab_size);
    CHECK(plan.d_model == info.d_model);
    CHECK(plan.heads == info.heads);
    CHECK(plan.embedding_scale == static_cast<float>(std::sqrt(double(d))));
    CHECK(names.count(plan.source_embedding) == 1);
    REQUIRE(plan.encoder_layers.size() == size_t(info.encoder_layers));
    for (const EncoderLayerPlan& l : plan.encoder_layers) {
      CHECK((l.norm == "pre" || l.norm == "post"));
      CHECK((l.activation == "relu" || l.activation == "swish"));
      if (l.raw_self_kv) {
        CHECK(l.norm == "pre");  // only pre-norm has a raw input distinct from the norm's
        CHECK(l.qkv.weights.empty());
        check_linear(l.q, d, d);
        check_linear(l.kv, d, 2 * d);
      } else {
        CHECK(l.q.weights.empty());
        CHECK(l.kv.weights.empty());
        check_linear(l.qkv, d, 3 * d);
      }
      check_linear(l.o, d, d);
      check_linear(l.ffn_w1, d, ffn);
      check_linear(l.ffn_w2, ffn, d);
      for (const NormPlan* n : {&l.self_attention_norm, &l.ffn_norm}) {
        CHECK(names.count(n->weight) == 1);
        CHECK(names.count(n->bias) == 1);
        CHECK(n->eps > 0.f);
      }
    }
    CHECK(plan.encoder_final_norm.weight.empty() == (plan.encoder_layers[0].norm == "post"));
    check_linear(plan.output, d, vocab);
  }
}

TEST_CASE("the encoder the plan describes gives the PyTorch reference's encoder output", "[plan]") {
  for (const std::string& variant : testing::fixture_variants()) {
    CAPTURE(variant);
    const Translator t(testing::fixture_path(variant, "model.tfm"));
    const ModelPlan plan = t.plan();
    const testing::Golden golden(variant);
    // The interpreter computes in f64 from the engine's f32 weights (int8 ones dequantised, as
    // WebGPU uploads them): within 2e-5 of the reference on f32/f16 fixtures. The int8 reference
    // also quantises activations, which the dequantised weights do not repeat: measured up to 0.25
    // there, where a wrong tensor or norm placement moves layer-normed outputs by whole units.
    const double bound = variant.find("int8") != std::string::npos ? 0.5 : testing::encoder_tolerance(variant);
    for (const auto& s : golden.json["sentences"]) {
      const std::vector<int> ids = s["source_ids"].get<std::vector<int>>();
      const Rows got = run_encoder(t, plan, ids);
      const std::vector<float> expected = golden.array(s["encoder_output"]);
      REQUIRE(expected.size() == got.v.size());
      double worst = 0;
      for (size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, std::abs(got.v[i] - expected[i]));
      CAPTURE(worst);
      CHECK(worst < bound);
    }
  }
}
