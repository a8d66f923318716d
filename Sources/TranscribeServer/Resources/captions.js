// The captions page: the microphone, through the encoder worklet, streamed to the WebSocket on
// the page's own address in vosk's protocol, and the replies shown as captions.
//
// The server fills in the page's settings (the `captions-config` JSON) and the worklet's source
// (the `pcm-worklet` script) when it serves the page; nothing here is loaded from elsewhere.
'use strict';
(() => {
  const settings = JSON.parse(document.getElementById('captions-config').textContent);
  // Whether the server wants a token, to explain a refused connection.
  const tokenRequired = settings.tokenRequired === true;
  // How long the server waits for the last words after the end of the stream; the page gives
  // the reply and the close a few seconds more to arrive before it closes the socket itself.
  const closeAfterEndMilliseconds = settings.finalWaitMilliseconds + 5000;
  // The worklet's frames last 100 ms: what is kept while the WebSocket connects is 5 s.
  const maxQueuedFrames = 50;
  const toggle = document.getElementById('toggle');
  const statusLine = document.getElementById('status');
  const finals = document.getElementById('finals');
  const partial = document.getElementById('partial');
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

  // The server's /readyz, under whatever prefix the page is served at: the page is the server's
  // root, whether its address ends in a slash (`/captions/`) or not (`/captions`).
  function readinessURL() {
    const url = new URL(location.href);
    url.pathname = url.pathname.replace(/\/?$/, '/readyz');
    url.search = '';
    url.hash = '';
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
      const response = await fetch(readinessURL(), { cache: 'no-store' });
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
        current.closeTimer = setTimeout(() => socket.close(), closeAfterEndMilliseconds);
      } else if (socket.readyState === WebSocket.OPEN) {
        socket.send(event.data);
      } else if (socket.readyState === WebSocket.CONNECTING && current.queue.length < maxQueuedFrames) {
        current.queue.push(event.data);
      }
    };
    socket.onopen = () => {
      current.opened = true;
      // The audio is at the context's own rate (the browser's, usually 44.1 or 48 kHz): the
      // server converts it to what the recognizer needs.
      socket.send(JSON.stringify({ config: { sample_rate: context.sampleRate } }));
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
