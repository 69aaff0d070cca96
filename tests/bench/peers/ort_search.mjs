// Greedy and beam search over the ONNX graphs written by `models/tfm export-onnx`, with the rules of
// models/tformer/decode.py (and core/src/decoding/search.cc), so that outputs compare token for token:
// - the target length limit is floor(2 * source length) capped by an explicit limit and max_positions;
//   at the last allowed step only EOS may be chosen; <unk> gets -inf when the config says so;
// - hypothesis scores are float32 sums of float32 step log-probabilities (Math.fround);
// - candidates rank by summed score, ties by lower row then lower token id; the best 2K are read: an EOS
//   among the first K finishes a hypothesis, the others fill the next beam up to K; a sentence is done
//   when K hypotheses have finished; finished hypotheses rank by score / length^alpha. K = 1 is greedy.
// Sentences are batched like the engine's translator: stable sort by source length, then batches of at
// most `batchTokens` padded source tokens; rows of finished sentences leave the batch.
// No imports: node (peers/ort.mjs) and browser pages (peers/chromium.mjs) load this file alike.

// tformer.json of an export folder, read by the caller (a file in node, a fetch in a page).
export function checkExport(info, dir) {
  if (info?.format !== 'tformer-onnx' || info?.version !== 1)
    throw new Error(`${dir}/tformer.json: not a tformer ONNX export of version 1`);
  return info;
}

// `dir`: the export folder, a path (node) or a URL (browser).
export async function createSessions(ort, dir, info, options) {
  const encoder = await ort.InferenceSession.create(`${dir}/${info.encoder.file}`, options);
  const decoder = await ort.InferenceSession.create(`${dir}/${info.decoder_step.file}`, options);
  return { encoder, decoder };
}

export function maxTargetLength(cfg, sourceLength, { ratio = 2.0, offset = 0, limit = 0 } = {}) {
  let n = Math.floor(ratio * sourceLength) + offset;
  if (limit > 0) n = Math.min(n, limit);
  return Math.max(1, Math.min(n, cfg.max_positions));
}

const int64 = (ort, values, dims) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

// The best `count` candidates seen (descending score, ties by lower index; -inf never), kept sorted.
class TopCandidates {
  constructor(count) {
    this.count = count;
    this.scores = [];
    this.indices = [];
  }

  consider(score, index) {  // indices must arrive in increasing order: an equal score keeps the earlier one
    const { scores, indices, count } = this;
    if (score === -Infinity || (scores.length === count && !(score > scores[count - 1]))) return;
    let at = scores.length;
    while (at > 0 && score > scores[at - 1]) --at;
    scores.splice(at, 0, score);
    indices.splice(at, 0, index);
    if (scores.length > count) {
      scores.pop();
      indices.pop();
    }
  }

  // Every token of one row: score fround(base + lp[v]), index offset + v; `skip` is left out. The hot
  // loop: a score that cannot enter the list (an equal one never does) costs no call.
  considerRow(lp, base, offset, skip) {
    const { scores, count } = this;
    let worst = scores.length === count ? scores[count - 1] : -Infinity;
    for (let v = 0, n = lp.length; v < n; ++v) {
      const s = Math.fround(base + lp[v]);
      if (s > worst || scores.length < count) {
        if (v === skip) continue;
        this.consider(s, offset + v);
        if (scores.length === count) worst = scores[count - 1];
      }
    }
  }
}

// Translates one batch of source id lists; returns the best hypothesis of each: {tokens, score, rawScore}.
export async function searchBatch(ort, sessions, info, sources, maxLengths, { beam = 1, alpha = 1.0 } = {}) {
  const cfg = info.config, V = cfg.vocab_size, K = Math.max(1, beam);
  const B = sources.length, S = Math.max(...sources.map((s) => s.length));
  const ids = [], mask = [];
  for (const s of sources)
    for (let j = 0; j < S; ++j) {
      ids.push(j < s.length ? s[j] : cfg.pad_id);
      mask.push(j < s.length ? 1 : 0);
    }
  const encoderAttentionMask = int64(ort, mask, [B, S]);
  const encoded = await sessions.encoder.run({ input_ids: int64(ort, ids, [B, S]), attention_mask: encoderAttentionMask });
  const dec = info.decoder_step;
  const feeds = { encoder_attention_mask: encoderAttentionMask };
  for (const name of dec.cross) feeds[name] = encoded[name];
  const emptyPast = info.cache === 'ssru' ? () => new ort.Tensor('float32', new Float32Array(B * cfg.d_model), [B, cfg.d_model])
    : () => new ort.Tensor('float32', new Float32Array(0), [B, info.heads, 0, info.head_dim]);
  for (const name of dec.past) feeds[name] = emptyPast();

  // Live rows: {sentence, tokens, score}; rows of a sentence stay together, in rank order.
  let rows = sources.map((_, b) => ({ sentence: b, tokens: [], score: 0 }));
  let parents = rows.map((_, b) => b);
  const finished = sources.map(() => []);
  const zeroStart = cfg.decoder_start === 'zero';
  for (let step = 0; rows.length > 0; ++step) {
    const N = rows.length;
    feeds.input_ids = int64(ort, rows.map((r) => (r.tokens.length ? r.tokens[r.tokens.length - 1] : info.start_token)), [N]);
    feeds.use_token = new ort.Tensor('float32', new Float32Array(N).fill(step === 0 && zeroStart ? 0 : 1), [N]);
    feeds.step = int64(ort, [step], []);
    feeds.beam_index = int64(ort, parents, [N]);
    feeds.cross_index = int64(ort, rows.map((r) => r.sentence), [N]);
    const out = await sessions.decoder.run(feeds);
    const logProbs = out.log_probs.data;
    for (let i = 0; i < dec.past.length; ++i) feeds[dec.past[i]] = out[dec.present[i]];

    const nextRows = [], nextParents = [];
    for (let first = 0; first < N;) {
      const b = rows[first].sentence;
      let end = first;
      while (end < N && rows[end].sentence === b) ++end;
      const n = end - first, forceEos = step === maxLengths[b] - 1;
      const top = new TopCandidates(2 * K);
      for (let r = 0; r < n; ++r) {
        const lp = logProbs.subarray((first + r) * V, (first + r + 1) * V), base = rows[first + r].score;
        // Summed in float32, as the reference adds float32 tensors.
        if (forceEos) {
          top.consider(Math.fround(base + lp[cfg.eos_id]), r * V + cfg.eos_id);
          continue;
        }
        top.considerRow(lp, base, r * V, cfg.suppress_unk ? cfg.unk_id : -1);
      }
      const live = [];
      top.indices.forEach((index, rank) => {
        const score = top.scores[rank], r = Math.floor(index / V), tok = index % V;
        const tokens = rows[first + r].tokens.concat([tok]);
        if (tok === cfg.eos_id) {
          if (rank < K && finished[b].length < K)
            finished[b].push({ tokens, rawScore: score, score: alpha ? score / tokens.length ** alpha : score });
        } else if (live.length < K) {
          live.push({ row: { sentence: b, tokens, score }, parent: first + r });
        }
      });
      if (finished[b].length < K && live.length > 0)
        for (const l of live) {
          nextRows.push(l.row);
          nextParents.push(l.parent);
        }
      first = end;
    }
    rows = nextRows;
    parents = nextParents;
  }
  return finished.map((hyps) => hyps.map((h, i) => [h, i]).sort((x, y) => y[0].score - x[0].score || x[1] - y[1])[0][0]);
}

// Length-sorted batches of at most batchTokens padded tokens, as core/src/translator.cc forms them.
export function makeBatches(sources, batchTokens = 4096) {
  const order = sources.map((_, i) => i).filter((i) => sources[i].length > 0);
  order.sort((a, b) => sources[a].length - sources[b].length || a - b);
  const batches = [];
  for (let begin = 0; begin < order.length;) {
    let end = begin + 1;
    while (end < order.length && (end - begin + 1) * sources[order[end]].length <= batchTokens) ++end;
    batches.push(order.slice(begin, end));
    begin = end;
  }
  return batches;
}

export async function translateIds(ort, sessions, info, sources, { beam = 1, alpha = 1.0, maxLength = 0, batchTokens = 4096 } = {}) {
  const results = new Array(sources.length).fill(null);
  for (const batch of makeBatches(sources, batchTokens)) {
    const srcs = batch.map((i) => sources[i]);
    const maxLengths = srcs.map((s) => maxTargetLength(info.config, s.length, { limit: maxLength }));
    const hyps = await searchBatch(ort, sessions, info, srcs, maxLengths, { beam, alpha });
    batch.forEach((i, k) => { results[i] = hyps[k]; });
  }
  return results;
}
