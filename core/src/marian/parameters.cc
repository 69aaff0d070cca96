#include "marian/parameters.h"

namespace tformer::marian {

std::vector<Parameter> parameter_map(const Architecture& a) {
  const std::string sfx = a.norm == "pre" ? "_pre" : "";
  std::vector<Parameter> out;
  auto attention = [&](const std::string& m, const std::string& t, const std::string& norm) {
    for (char p : std::string("qkvo")) {
      out.push_back({m + "_W" + p, t + "." + p + ".weight", 'W'});
      out.push_back({m + "_b" + p, t + "." + p + ".bias", 'b'});
    }
    out.push_back({m + "_Wo_ln_scale" + sfx, norm + ".weight", 'b'});
    out.push_back({m + "_Wo_ln_bias" + sfx, norm + ".bias", 'b'});
  };
  auto ffn = [&](const std::string& m, const std::string& t) {
    out.push_back({m + "_W1", t + ".ffn.w1.weight", 'W'});
    out.push_back({m + "_b1", t + ".ffn.w1.bias", 'b'});
    out.push_back({m + "_W2", t + ".ffn.w2.weight", 'W'});
    out.push_back({m + "_b2", t + ".ffn.w2.bias", 'b'});
    out.push_back({m + "_ffn_ln_scale" + sfx, t + ".ffn_norm.weight", 'b'});
    out.push_back({m + "_ffn_ln_bias" + sfx, t + ".ffn_norm.bias", 'b'});
  };
  if (a.tie == "all") {
    out.push_back({"Wemb", "embedding.weight", 'E'});
  } else if (a.tie == "src") {
    out.push_back({"Wemb", "source_embedding.weight", 'E'});  // and target_embedding.weight
  } else {
    out.push_back({"encoder_Wemb", "source_embedding.weight", 'E'});
    out.push_back({"decoder_Wemb", "target_embedding.weight", 'E'});
  }
  for (int i = 0; i < a.encoder_layers; ++i) {
    const std::string m = "encoder_l" + std::to_string(i + 1), t = "encoder.layers." + std::to_string(i);
    attention(m + "_self", t + ".self_attn", t + ".self_attn_norm");
    ffn(m + "_ffn", t);
  }
  for (int i = 0; i < a.decoder_layers; ++i) {
    const std::string m = "decoder_l" + std::to_string(i + 1), t = "decoder.layers." + std::to_string(i);
    if (a.decoder_layer_type == "ssru") {
      out.push_back({m + "_rnn_W", t + ".ssru.w.weight", 'W'});
      out.push_back({m + "_rnn_Wf", t + ".ssru.wf.weight", 'W'});
      out.push_back({m + "_rnn_bf", t + ".ssru.wf.bias", 'b'});
      const std::string ln = sfx.empty() ? m + "_rnn_ffn_ln_" : m + "_rnn_ln_";
      out.push_back({ln + "scale" + sfx, t + ".ssru_norm.weight", 'b'});
      out.push_back({ln + "bias" + sfx, t + ".ssru_norm.bias", 'b'});
    } else {
      attention(m + "_self", t + ".self_attn", t + ".self_attn_norm");
    }
    attention(m + "_context", t + ".cross_attn", t + ".cross_attn_norm");
    ffn(m + "_ffn", t);
  }
  if (a.norm == "pre") {
    for (const std::string side : {"encoder", "decoder"}) {
      out.push_back({side + "_top_ln_scale", side + ".final_norm.weight", 'b'});
      out.push_back({side + "_top_ln_bias", side + ".final_norm.bias", 'b'});
    }
  }
  if (a.tie == "none" || a.tie == "src") out.push_back({kOutput, "output.weight", 'E'});
  if (a.output_bias) out.push_back({"decoder_ff_logit_out_b", "output_bias", 'b'});
  return out;
}

}  // namespace tformer::marian
