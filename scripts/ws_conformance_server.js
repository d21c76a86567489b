// The Node ws 8 server of scripts/ws-conformance: plays the cases of the JSON file it is given (the
// list scripts/ws_conformance_cases.py makes) by the request's path (/case/N), writes their frames
// raw through the socket, reads what comes back through ws's own strict parser, and prints one
// JSON line per case: {"index": N, "verdict": "ok" or what was wrong}. The first line is
// {"port": P, "version": V}. Exits when its stdin closes.
'use strict';
module.paths.push('/usr/share/nodejs');
const fs = require('fs');
const http = require('http');
const { WebSocketServer } = require('ws');
const version = require('ws/package.json').version;

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const TEXT_PATTERN = Buffer.from('The quick brown fox jumps over the lazy dog; 0123456789 pack my box with five dozen liquor jugs. ');
const cache = new Map();

// The same bytes as payload_bytes in scripts/ws-conformance.
function payloadBytes(spec) {
    if (spec.hex !== undefined) return Buffer.from(spec.hex, 'hex');
    const key = `${spec.gen}/${spec.size}/${spec.seed}`;
    let data = cache.get(key);
    if (!data) {
        data = Buffer.alloc(spec.size);
        if (spec.gen === 'text') {
            const start = spec.seed % TEXT_PATTERN.length;
            for (let i = 0; i < spec.size; i++) data[i] = TEXT_PATTERN[(start + i) % TEXT_PATTERN.length];
        } else if (spec.gen === 'binary') {
            for (let i = 0; i < spec.size; i++) data[i] = (i * 31 + spec.seed) & 0xff;
        } else {
            let x = spec.seed & 0x7fffffff;
            for (let i = 0; i < spec.size; i++) {
                x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
                data[i] = (x >>> 16) & 0xff;
            }
        }
        if (cache.size > 64) cache.clear();
        cache.set(key, data);
    }
    return spec.from !== undefined ? data.subarray(spec.from, spec.to) : data;
}

function frameBytes(spec) {
    let payload = payloadBytes(spec.payload);
    const mask = spec.mask ? 0x80 : 0;
    let head;
    if (payload.length < 126) {
        head = Buffer.from([0, mask | payload.length]);
    } else if (payload.length <= 0xffff) {
        head = Buffer.from([0, mask | 126, payload.length >> 8, payload.length & 0xff]);
    } else {
        head = Buffer.alloc(10);
        head[1] = mask | 127;
        head.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    head[0] = (spec.fin ? 0x80 : 0) | (spec.rsv << 4) | spec.op;
    if (mask) {
        const key = Buffer.from([1, 2, 3, 4]);
        payload = Buffer.from(payload.map((b, i) => b ^ key[i % 4]));
        head = Buffer.concat([head, key]);
    }
    return Buffer.concat([head, payload]);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function deflateOptions(config) {
    const options = { threshold: 0 };
    if (config.server_no_context_takeover) options.serverNoContextTakeover = true;
    if (config.client_no_context_takeover) options.clientNoContextTakeover = true;
    if (config.server_max_window_bits) options.serverMaxWindowBits = config.server_max_window_bits;
    if (config.client_max_window_bits) options.clientMaxWindowBits = config.client_max_window_bits;
    return options;
}

// One WebSocketServer per permessage-deflate configuration (and one declining it): the case's path chooses.
const configs = JSON.parse(process.argv[3] || '{}');
const servers = new Map();
function serverFor(name) {
    if (!servers.has(name)) {
        servers.set(name, new WebSocketServer({
            noServer: true, maxPayload: 256 * 1024 * 1024,
            perMessageDeflate: name ? deflateOptions(configs[name] || {}) : false,
        }));
    }
    return servers.get(name);
}

function judgeEcho(received, wanted, pongs, pings) {
    if (received.length !== wanted.length) return `${received.length} messages came back, ${wanted.length} expected`;
    for (let i = 0; i < wanted.length; i++) {
        const [gotText, got] = received[i], [wantText, want] = wanted[i];
        if (gotText !== wantText || !got.equals(want)) {
            return `message ${i + 1} came back different (${gotText ? 'text' : 'binary'}, ${got.length} bytes; expected ${want.length})`;
        }
    }
    const missing = pings.find((p) => !pongs.some((q) => q.equals(p)));
    return missing ? `no pong for the ping ${missing.toString('latin1').slice(0, 20)}` : 'ok';
}

function judgeClose(kase, code) {
    if (kase.expect === 'fail') {
        if (code === null || kase.codes.includes(code)) return 'ok';
        return `the client closed with ${code}, expected ${JSON.stringify(kase.codes)} or a dropped connection`;
    }
    return code === kase.code ? 'ok' : `the client answered the close with ${code}, expected ${kase.code}`;
}

async function play(ws, kase, index) {
    const received = [], pongs = [];
    let compressedMessages = 0;
    let closed = null;   // the client's close code (null: none came), once the connection has ended
    let changed = () => {};
    const notify = () => changed();
    const deflate = ws._extensions['permessage-deflate'];
    if (deflate) {
        // Counts the client's compressed messages (ws decompresses only those with RSV1).
        const decompress = deflate.decompress.bind(deflate);
        deflate.decompress = (data, fin, callback) => {
            if (fin) compressedMessages++;
            decompress(data, fin, callback);
        };
    }
    ws.on('message', (data, isBinary) => { received.push([!isBinary, Buffer.from(data)]); notify(); });
    ws.on('pong', (data) => { pongs.push(Buffer.from(data)); notify(); });
    ws.on('error', () => {});
    const ended = new Promise((resolve) => ws.on('close', (code) => {
        closed = { code: code === 1006 ? null : code };
        notify();
        resolve();
    }));
    const write = (data) => { if (!ws._socket.destroyed && ws._socket.writable) ws._socket.write(data); };
    const deadline = Date.now() + (kase.timeout || 10) * 1000 - 1000;
    const until = async (condition) => {
        while (!condition() && Date.now() < deadline) {
            await Promise.race([new Promise((resolve) => { changed = resolve; }), sleep(Math.max(1, deadline - Date.now()))]);
        }
        return condition();
    };
    let verdict = 'ok';
    try {
        for (const action of kase.actions) {
            if (action[0] === 'frame') write(frameBytes(action[1]));
            else if (action[0] === 'ping') write(frameBytes({ fin: true, rsv: 0, op: 9, payload: action[1] }));
            else if (action[0] === 'chop') {
                const data = frameBytes(action[1]);
                for (let start = 0; start < data.length; start += action[2]) {
                    write(data.subarray(start, start + action[2]));
                    await sleep(1);
                }
            } else if (action[0] === 'send') {
                const data = payloadBytes(action[2]);
                await new Promise((resolve) => ws.send(action[1] === 'text' ? data.toString('utf8') : data,
                    { binary: action[1] !== 'text', compress: true }, resolve));
            } else if (action[0] === 'sleep') await sleep(action[1]);
        }
        if (kase.expect === 'echo') {
            const wanted = (kase.messages || []).map(([kind, spec]) => [kind === 'text', payloadBytes(spec)]);
            const pings = kase.actions.filter((a) => a[0] === 'ping' && a[2]).map((a) => payloadBytes(a[1]));
            await until(() => closed !== null || (received.length >= wanted.length && pings.every((p) => pongs.some((q) => q.equals(p)))));
            verdict = judgeEcho(received, wanted, pongs, pings);
            if (verdict === 'ok' && kase.compressed && compressedMessages === 0) verdict = 'no message came back compressed (RSV1)';
            if (closed === null) ws.close(1000);
            if (!(await until(() => closed !== null))) verdict = 'the closing handshake did not complete in time';
            else if (verdict === 'ok' && closed.code !== 1000) verdict = `the client answered the closing handshake with ${closed.code}`;
        } else {
            if (!(await until(() => closed !== null))) verdict = 'the connection did not end in time';
            else verdict = judgeClose(kase, closed.code);
        }
    } catch (error) {
        verdict = `server error: ${error}`;
    }
    ws.terminate();
    await ended;
    process.stdout.write(JSON.stringify({ index, verdict }) + '\n');
}

const server = http.createServer((request, response) => { response.writeHead(404); response.end(); });
server.on('upgrade', (request, socket, head) => {
    const index = Number(request.url.split('/').pop());
    const kase = cases[index];
    if (!kase) { socket.destroy(); return; }
    const wss = serverFor(kase.deflate || null);
    wss.handleUpgrade(request, socket, head, (ws) => play(ws, kase, index));
});
server.listen(0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ port: server.address().port, version }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
