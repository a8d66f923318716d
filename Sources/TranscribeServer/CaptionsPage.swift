import HTTPTypes
import Hummingbird

/// The live-captions page `GET /` serves: the browser's microphone, streamed to the WebSocket on
/// the same path, with the words appearing as they are spoken.
///
/// The page is one self-contained document (no external scripts, styles or fonts). Its
/// AudioWorklet mixes the microphone down to mono, resamples it to 16 kHz with a windowed-sinc
/// low-pass filter, and posts 100 ms frames of 16-bit little-endian PCM; the page sends vosk's
/// `{"config": {"sample_rate": 16000}}` first, the frames as binary messages, and `{"eof" : 1}`
/// when Stop is pressed. `{"partial": …}` replies show as the line in progress, `{"text": …}`
/// replies become finished lines.
///
/// The WebSocket is `ws:` or `wss:` as the page is `http:` or `https:`, and a `?token=` in the
/// page's address is passed on to it. The page itself holds no secret, so it is served without
/// the token; it only knows whether one is required, to explain a refused connection.
///
/// ```swift
/// let page = CaptionsPage(tokenRequired: configuration.token != nil)
/// router.get("/") { _, _ in page.response() }
/// ```
public struct CaptionsPage: Sendable, Equatable {
  /// Whether the server wants a token, so the page can explain a refused connection.
  public var tokenRequired: Bool

  /// Creates the page for a server that does or does not require a token.
  public init(tokenRequired: Bool) {
    self.tokenRequired = tokenRequired
  }

  /// The sample rate the page streams at.
  public static let sampleRate = 16_000

  /// The whole document.
  public var html: String {
    Self.template.replacingOccurrences(
      of: "{{TOKEN_REQUIRED}}", with: tokenRequired ? "true" : "false")
  }

  /// The document as an HTTP response: HTML, not cached (it changes with the server's
  /// configuration), and no referrer sent anywhere (the address may carry a token).
  public func response() -> Response {
    Response(
      status: .ok,
      headers: [
        .contentType: "text/html; charset=utf-8",
        .cacheControl: "no-cache",
        .referrerPolicy: "no-referrer",
        .contentTypeOptions: "nosniff",
      ],
      body: .init(byteBuffer: ByteBuffer(string: html)))
  }

  // The worklet is inline too (a `text/worklet` script the page loads through a blob URL), so the
  // page stays one document that works behind any path prefix a proxy adds.
  private static let template = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Live captions · transcribe</title>
    <style>
      :root { color-scheme: light dark; --accent: #0b57d0; --muted: #5f6368; --error: #b3261e; }
      @media (prefers-color-scheme: dark) {
        :root { --accent: #a8c7fa; --muted: #bdc1c6; --error: #f2b8b5; }
      }
      body { font: 1.125rem/1.5 system-ui, sans-serif; margin: 0; }
      main { max-width: 48rem; margin: 0 auto; padding: 1.5rem; }
      h1 { font-size: 1.5rem; margin: 0 0 1rem; }
      .controls { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
      button { font: inherit; padding: 0.5rem 1.5rem; border-radius: 0.5rem; cursor: pointer;
        border: 2px solid var(--accent); background: var(--accent); color: Canvas; }
      button[aria-pressed="true"] { background: transparent; color: var(--accent); }
      button:disabled { opacity: 0.6; cursor: progress; }
      button:focus-visible { outline: 3px solid var(--accent); outline-offset: 3px; }
      #status { margin: 0; color: var(--muted); }
      #status[data-kind="error"] { color: var(--error); font-weight: 600; }
      #captions { margin-top: 1.5rem; font-size: 1.5rem; min-height: 6rem; }
      #finals p { margin: 0 0 0.5rem; }
      #partial { margin: 0; color: var(--muted); font-style: italic; min-height: 1.5em; }
      #partial:not(:empty)::after { content: "\2026"; }
      .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
        clip-path: inset(50%); white-space: nowrap; }
    </style>
    </head>
    <body data-token-required="{{TOKEN_REQUIRED}}">
    <main>
      <h1>Live captions</h1>
      <div class="controls">
        <button id="toggle" type="button" aria-pressed="false">Start</button>
        <p id="status" role="status" aria-live="polite">Press Start and allow the microphone.</p>
      </div>
      <section id="captions" aria-labelledby="captions-heading">
        <h2 id="captions-heading" class="visually-hidden">Captions</h2>
        <div id="finals" role="log" aria-live="polite" aria-relevant="additions"></div>
        <p id="partial"></p>
      </section>
    </main>
    <script type="text/worklet" id="pcm-worklet">
    // Runs on the audio thread: mono input at the context's rate in, 16-bit little-endian PCM
    // frames at the target rate out (posted as ArrayBuffers), and "flushed" after a "flush".
    class PCMEncoder extends AudioWorkletProcessor {
      constructor(options) {
        super();
        const settings = options.processorOptions || {};
        this.frameSamples = settings.frameSamples || 1600;
        this.step = sampleRate / (settings.targetRate || 16000);
        // A windowed-sinc low-pass at 90% of the output's Nyquist frequency, tabulated for 256
        // fractional positions; each kernel sums to 1 so silence and level are kept.
        const cutoff = 0.45 * Math.min(1, 1 / this.step);
        this.half = Math.ceil(8 / (2 * cutoff));
        this.phases = 256;
        this.kernels = [];
        for (let phase = 0; phase < this.phases; phase++) {
          const kernel = new Float32Array(2 * this.half);
          let sum = 0;
          for (let tap = 0; tap < kernel.length; tap++) {
            const t = tap - this.half + 1 - phase / this.phases;
            const x = 2 * cutoff * t;
            const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
            const w = t / this.half;
            const blackman = Math.abs(w) >= 1 ? 0
              : 0.42 + 0.5 * Math.cos(Math.PI * w) + 0.08 * Math.cos(2 * Math.PI * w);
            kernel[tap] = sinc * blackman;
            sum += kernel[tap];
          }
          for (let tap = 0; tap < kernel.length; tap++) kernel[tap] /= sum;
          this.kernels.push(kernel);
        }
        this.input = new Float32Array(8192);
        this.length = this.half;  // leading silence, so the first sample has a full window
        this.position = this.half;
        this.startFrame();
        this.done = false;
        this.port.onmessage = (event) => { if (event.data === 'flush') this.flush(); };
      }
      startFrame() {
        this.frame = new ArrayBuffer(this.frameSamples * 2);
        this.view = new DataView(this.frame);
        this.count = 0;
      }
      append(samples) {
        if (this.length + samples.length > this.input.length) {
          const larger = new Float32Array(2 * (this.length + samples.length));
          larger.set(this.input.subarray(0, this.length));
          this.input = larger;
        }
        this.input.set(samples, this.length);
        this.length += samples.length;
        this.resample();
      }
      resample() {
        while (Math.floor(this.position) + this.half < this.length) {
          const index = Math.floor(this.position);
          const kernel = this.kernels[Math.floor((this.position - index) * this.phases)];
          const first = index - this.half + 1;
          let value = 0;
          for (let tap = 0; tap < kernel.length; tap++) value += this.input[first + tap] * kernel[tap];
          const clipped = Math.max(-1, Math.min(1, value));
          this.view.setInt16(2 * this.count, clipped < 0 ? clipped * 0x8000 : clipped * 0x7fff, true);
          this.count += 1;
          if (this.count === this.frameSamples) {
            this.port.postMessage(this.frame, [this.frame]);
            this.startFrame();
          }
          this.position += this.step;
        }
        const drop = Math.floor(this.position) - this.half + 1;
        if (drop > 0) {
          this.input.copyWithin(0, drop, this.length);
          this.length -= drop;
          this.position -= drop;
        }
      }
      flush() {
        if (this.done) return;
        this.append(new Float32Array(this.half + 1));
        if (this.count > 0) {
          const rest = this.frame.slice(0, 2 * this.count);
          this.port.postMessage(rest, [rest]);
        }
        this.done = true;
        this.port.postMessage('flushed');
      }
      process(inputs) {
        if (this.done) return false;
        const input = inputs[0];
        if (input && input.length > 0) this.append(input[0]);
        return true;
      }
    }
    registerProcessor('pcm-encoder', PCMEncoder);
    </script>
    <script>
    'use strict';
    (() => {
      const targetRate = 16000;
      const frameSamples = 1600;  // 100 ms
      const maxQueuedFrames = 50;  // what is kept while the WebSocket connects: 5 s
      const toggle = document.getElementById('toggle');
      const statusLine = document.getElementById('status');
      const finals = document.getElementById('finals');
      const partial = document.getElementById('partial');
      const tokenRequired = document.body.dataset.tokenRequired === 'true';
      const token = new URLSearchParams(location.search).get('token');
      let session = null;

      function setStatus(text, kind) {
        statusLine.textContent = text;
        statusLine.dataset.kind = kind || 'info';
      }

      function setButton(recording, busy) {
        toggle.textContent = recording ? 'Stop' : 'Start';
        toggle.setAttribute('aria-pressed', recording ? 'true' : 'false');
        toggle.disabled = !!busy;
      }

      function socketURL() {
        const url = new URL(location.href);
        url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
        url.search = '';
        url.hash = '';
        if (token) url.searchParams.set('token', token);
        return url.href;
      }

      function microphoneMessage(error) {
        switch (error && error.name) {
          case 'NotAllowedError':
          case 'SecurityError':
            return 'The microphone is blocked for this page. Allow it in the browser\u2019s site settings, then press Start again.';
          case 'NotFoundError':
          case 'OverconstrainedError':
            return 'No microphone was found. Connect one, then press Start again.';
          case 'NotReadableError':
            return 'The microphone could not be opened: another program may be using it.';
          default:
            return 'The microphone could not be opened: ' + (error && error.message || error);
        }
      }

      function tokenMessage() {
        return token
          ? 'The server did not accept the token in this page\u2019s address. Open the page as ?token=\u2026 with the token transcribe serve was given.'
          : 'This server needs an access token: open the page as ?token=YOUR_TOKEN (the token transcribe serve was given).';
      }

      const busyMessage = 'The server is busy: all its sessions are in use. Try again in a moment.';

      // A WebSocket refused during the handshake only reports "closed" (1006) to the page, so ask
      // /readyz why, and say what is known about the token.
      async function refusedMessage() {
        if (tokenRequired && !token) return tokenMessage();
        try {
          const response = await fetch(new URL('readyz', location.href), { cache: 'no-store' });
          if (response.status === 503) {
            const report = await response.json().catch(() => ({}));
            if (report.status === 'full') return busyMessage;
            if (report.status === 'preparing') return 'The server is still loading its speech model. Try again in a moment.';
            return 'The server cannot take sessions now (' + (report.status || 'unavailable') + ').';
          }
        } catch (error) {
          return 'The server cannot be reached. Is transcribe serve still running?';
        }
        if (tokenRequired) return tokenMessage();
        return 'The server refused the connection.';
      }

      function showReply(current, reply) {
        if (typeof reply.error === 'string') {
          current.serverError = reply.error;
        } else if (typeof reply.partial === 'string') {
          partial.textContent = reply.partial;
        } else if (typeof reply.text === 'string') {
          partial.textContent = '';
          if (reply.text.trim() !== '') {
            const line = document.createElement('p');
            line.className = 'final';
            line.textContent = reply.text;
            finals.appendChild(line);
            line.scrollIntoView({ block: 'nearest' });
          }
        }
      }

      function releaseAudio(current) {
        if (current.audioReleased) return;
        current.audioReleased = true;
        current.stream.getTracks().forEach((track) => track.stop());
        current.source.disconnect();
        current.node.port.onmessage = null;
        current.node.disconnect();
        current.context.close().catch(() => {});
      }

      async function closed(current, event) {
        clearTimeout(current.closeTimer);
        releaseAudio(current);
        if (session === current) session = null;
        partial.textContent = '';
        setButton(false, false);
        let message;
        let kind = 'error';
        if (event.code === 1013) {
          message = busyMessage;
        } else if (current.serverError) {
          message = 'The server ended the session: ' + current.serverError;
        } else if (current.stopping && !current.opened) {
          message = 'Stopped.';
          kind = 'info';
        } else if (!current.opened) {
          message = await refusedMessage();
        } else if (current.stopping && (event.code === 1000 || event.code === 1005)) {
          message = 'Stopped.';
          kind = 'info';
        } else if (event.code === 1000 || event.code === 1001) {
          message = 'The server ended the session' + (event.reason ? ': ' + event.reason : '.');
        } else {
          message = 'The connection closed (' + event.code + (event.reason ? ': ' + event.reason : '') + ').';
        }
        setStatus(message, kind);
      }

      async function start() {
        if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.AudioWorkletNode) {
          setStatus('This browser cannot use the microphone on this page: browsers allow it only on https:// pages and on http://localhost.', 'error');
          return;
        }
        setButton(false, true);
        setStatus('Asking for the microphone\u2026');
        let stream;
        try {
          // The recognizer wants the microphone as it is: the browser's gain control clipped
          // speech and cost words when tried, and its noise suppression changes the spectrum.
          stream = await navigator.mediaDevices.getUserMedia({
            audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
          });
        } catch (error) {
          setButton(false, false);
          setStatus(microphoneMessage(error), 'error');
          return;
        }
        const context = new AudioContext();
        await context.resume().catch(() => {});
        const code = document.getElementById('pcm-worklet').textContent;
        const moduleURL = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
        try {
          await context.audioWorklet.addModule(moduleURL);
        } catch (error) {
          stream.getTracks().forEach((track) => track.stop());
          context.close().catch(() => {});
          setButton(false, false);
          setStatus('The audio encoder could not start: ' + error.message, 'error');
          return;
        } finally {
          URL.revokeObjectURL(moduleURL);
        }
        const source = context.createMediaStreamSource(stream);
        const node = new AudioWorkletNode(context, 'pcm-encoder', {
          numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
          channelCount: 1, channelCountMode: 'explicit', channelInterpretation: 'speakers',
          processorOptions: { targetRate, frameSamples },
        });
        // The node outputs silence; connecting it makes every browser keep pulling audio through it.
        source.connect(node).connect(context.destination);

        const socket = new WebSocket(socketURL());
        socket.binaryType = 'arraybuffer';
        const current = { stream, context, source, node, socket, queue: [], opened: false, stopping: false };
        session = current;
        node.port.onmessage = (event) => {
          if (event.data === 'flushed') {
            releaseAudio(current);
            if (socket.readyState === WebSocket.OPEN) socket.send('{"eof" : 1}');
            else socket.close();
            // The server answers eof with the last words and closes; don't wait forever.
            current.closeTimer = setTimeout(() => socket.close(), 15000);
          } else if (socket.readyState === WebSocket.OPEN) {
            socket.send(event.data);
          } else if (socket.readyState === WebSocket.CONNECTING && current.queue.length < maxQueuedFrames) {
            current.queue.push(event.data);
          }
        };
        socket.onopen = () => {
          current.opened = true;
          socket.send(JSON.stringify({ config: { sample_rate: targetRate } }));
          current.queue.forEach((frame) => socket.send(frame));
          current.queue = [];
          if (!current.stopping) {
            setButton(true, false);
            setStatus('Listening\u2026 speak now.');
          }
        };
        socket.onmessage = (event) => {
          if (typeof event.data !== 'string') return;
          let reply;
          try { reply = JSON.parse(event.data); } catch (error) { return; }
          showReply(current, reply);
        };
        socket.onclose = (event) => { closed(current, event); };
        setStatus('Connecting\u2026');
      }

      function stop() {
        const current = session;
        if (!current || current.stopping) return;
        current.stopping = true;
        setButton(false, true);
        setStatus('Finishing the last words\u2026');
        current.node.port.postMessage('flush');
      }

      toggle.addEventListener('click', () => { if (session) stop(); else start(); });
    })();
    </script>
    </body>
    </html>

    """#
}

extension HTTPField.Name {
  // Both names are valid header tokens, so the initializer cannot fail.
  fileprivate static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
  fileprivate static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
