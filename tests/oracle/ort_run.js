// Runs models under onnxruntime-node with the same inputs and prints their
// outputs (raw bytes, base64) as one JSON object, for pack_oracle.py:
//   node ort_run.js SPEC.json      (run from a directory with node_modules/onnxruntime-node)
// SPEC: {"models": [paths], "inputs": [{"name", "type", "dims", "data" (base64)}]}
const fs = require('fs');
const ort = require(require.resolve('onnxruntime-node', { paths: [process.cwd()] }));

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array,
  float16: Uint16Array,
};

function tensor(spec) {
  const bytes = Buffer.from(spec.data, 'base64');
  const copy = new Uint8Array(bytes);  // aligned for the typed array
  const T = ARRAYS[spec.type];
  const data = new T(copy.buffer, 0, copy.byteLength / T.BYTES_PER_ELEMENT);
  return new ort.Tensor(spec.type, data, spec.dims);
}

async function run(path, inputs) {
  try {
    const session = await ort.InferenceSession.create(path);
    const feeds = {};
    for (const i of inputs) feeds[i.name] = tensor(i);
    const out = await session.run(feeds);
    return {
      outputs: session.outputNames.map((n) => {
        const t = out[n];
        const d = t.data;
        const ok = d && d.buffer;
        return { name: n, type: ok ? t.type : null, dims: t.dims,
                 data: ok ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64') : JSON.stringify(d) };
      }),
    };
  } catch (e) {
    return { error: String(e.message || e) };
  }
}

(async () => {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = [];
  for (const m of spec.models) results.push(await run(m, spec.inputs));
  process.stdout.write(JSON.stringify({ results }));
})();
