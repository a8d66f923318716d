// The captions page: the microphone, through the encoder worklet, streamed to the WebSocket on
// the page's own address in vosk's protocol; audio files sent to the server's
// /v1/audio/transcriptions with stream=true; and one transcript of both, kept in the browser's
// storage, to copy or download as text, SubRip or WebVTT.
//
// The server fills in the page's settings (the `captions-config` JSON) and the worklet's source
// (the `pcm-worklet` script) when it serves the page; nothing here is loaded from elsewhere, and
// every address is made from the page's own, so the page works behind a proxy's path prefix.
'use strict';
(() => {
  const settings = JSON.parse(document.getElementById('captions-config').textContent);
  // Whether the server wants a token, to explain a refused connection.
  const tokenRequired = settings.tokenRequired === true;
  // How long the server waits for the last words after the end of the stream; the page gives
  // the reply and the close a few seconds more to arrive before it closes the socket itself.
  const closeAfterEndMilliseconds = settings.finalWaitMilliseconds + 5000;
  // The languages a stream may ask for, each with the engine that decodes it.
  const languages = Array.isArray(settings.languages) && settings.languages.length > 0
    ? settings.languages
    : [{ code: 'en', name: 'English', engine: '' }];
  // The worklet's frames last 100 ms: what is kept while the WebSocket (re)connects is 5 s.
  const maxQueuedFrames = 50;
  // Reconnecting waits 1 s, then twice as long each time, at most this long.
  const maxReconnectMilliseconds = 30000;
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  // `?view=overlay`: transparent, the last two lines, listening from the start (OBS's browser
  // source has no one to press Start). `?view=captions`: the captions alone, large.
  const view = params.get('view');
  const overlay = view === 'overlay';

  const toggle = document.getElementById('toggle');
  const statusLine = document.getElementById('status');
  const captions = document.getElementById('captions');
  const finals = document.getElementById('finals');
  const partial = document.getElementById('partial');
  const engineLine = document.getElementById('engine');
  const deviceChoice = document.getElementById('device');
  const languageLabel = document.getElementById('language-choice');
  const languageChoice = document.getElementById('language');
  const level = document.getElementById('level');
  const fileInput = document.getElementById('file');
  const dropZone = document.getElementById('drop');
  const fileProgress = document.getElementById('file-progress');
  const fileStatus = document.getElementById('file-status');
  const fileList = document.getElementById('file-list');
  const sizeControl = document.getElementById('size');

  // The page's state: the transcript (kept in the browser's storage), the live run from Start
  // to Stop (null when idle), and the files waiting to be sent.
  const emptyTranscript = () => ({ version: 1, origin: null, end: 0, lines: [] });
  let transcript = emptyTranscript();
  let storageWarned = false;
  let run = null;
  const waiting = [];
  let fileBusy = false;

  // ---------------------------------------------------------------------------------------
  // The browser's storage: what is remembered across a reload. A browser that refuses it
  // (private windows, full storage) still gets a working page.

  const keys = {
    transcript: 'transcribe.captions.transcript',
    device: 'transcribe.captions.device',
    language: 'transcribe.captions.language',
    size: 'transcribe.captions.size',
  };

  function remembered(key) {
    try { return localStorage.getItem(key); } catch (error) { return null; }
  }

  function remember(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
      return true;
    } catch (error) {
      return false;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Subtitles, cut by the rules of the CLI's `--format srt|vtt` (TranscriptFormats'
  // SubtitleCue and SubtitleFormat): each utterance on its own, a cue at most 7 s on screen
  // and two lines of at most 42 characters; a word too long for a line, or lasting longer than
  // a cue, gets a cue of its own.

  const cueRules = { maximumDuration: 7, maximumLineLength: 42, maximumLines: 2 };
  const graphemes = window.Intl && Intl.Segmenter ? new Intl.Segmenter() : null;

  // Characters as Swift counts them (grapheme clusters).
  function characters(text) {
    if (graphemes) {
      let count = 0;
      for (const segment of graphemes.segment(text)) { if (segment) count += 1; }
      return count;
    }
    return Array.from(text).length;
  }

  // The words wrapped into lines, or null when they need more lines than a cue has or one is
  // too long for a line (such a word only fits a cue of its own).
  function wrap(words) {
    const lines = [];
    for (const word of words) {
      const last = lines[lines.length - 1];
      if (last !== undefined
        && characters(last) + 1 + characters(word) <= cueRules.maximumLineLength) {
        lines[lines.length - 1] = last + ' ' + word;
      } else {
        lines.push(word);
      }
    }
    const fits = words.length <= 1 || (lines.length <= cueRules.maximumLines
      && lines.every((line) => characters(line) <= cueRules.maximumLineLength));
    return fits ? lines : null;
  }

  // One utterance's words ({word, start, end}, in seconds) as cues ({start, end, lines}).
  function cues(words) {
    const result = [];
    let current = [];
    const cut = (group) => ({
      start: group[0].start,
      end: group[group.length - 1].end,
      lines: wrap(group.map((word) => word.word)) || [group.map((word) => word.word).join(' ')],
    });
    for (const word of words) {
      const candidate = current.concat([word]);
      if (current.length > 0 && (word.end - current[0].start > cueRules.maximumDuration
        || wrap(candidate.map((each) => each.word)) === null)) {
        result.push(cut(current));
        current = [word];
      } else {
        current = candidate;
      }
    }
    if (current.length > 0) result.push(cut(current));
    return result;
  }

  // Seconds as HH:MM:SS,mmm (SubRip) or HH:MM:SS.mmm (WebVTT); negative times as zero.
  function timestamp(seconds, separator) {
    const milliseconds = Math.round(Math.max(seconds, 0) * 1000);
    const pad = (value, width) => String(value).padStart(width, '0');
    return pad(Math.floor(milliseconds / 3600000), 2) + ':'
      + pad(Math.floor(milliseconds / 60000) % 60, 2) + ':'
      + pad(Math.floor(milliseconds / 1000) % 60, 2) + separator
      + pad(milliseconds % 1000, 3);
  }

  // The transcript as a SubRip (`srt`) or WebVTT (`vtt`) file.
  function subtitles(format) {
    let output = format === 'vtt' ? 'WEBVTT\n\n' : '';
    let number = 0;
    for (const line of transcript.lines) {
      for (const cue of cues(wordsOf(line))) {
        number += 1;
        const times = timestamp(cue.start, format === 'vtt' ? '.' : ',') + ' --> '
          + timestamp(cue.end, format === 'vtt' ? '.' : ',') + '\n';
        output += (format === 'vtt' ? '' : number + '\n') + times + cue.lines.join('\n') + '\n\n';
      }
    }
    return output;
  }

  // A time on the transcript's timeline as H:MM:SS.
  function clock(seconds) {
    const whole = Math.floor(Math.max(seconds, 0));
    return Math.floor(whole / 3600) + ':' + String(Math.floor(whole / 60) % 60).padStart(2, '0')
      + ':' + String(whole % 60).padStart(2, '0');
  }

  // The transcript as plain text: each line after its time.
  function plainText() {
    return transcript.lines.map((line) => '[' + clock(line.start) + '] ' + line.text + '\n').join('');
  }

  // ---------------------------------------------------------------------------------------
  // The transcript: every finished line, live or from a file, on one timeline. A live stream's
  // times run from its first audio, placed at the wall-clock time it began (after the
  // transcript's first source); a file's run from its start, placed after the lines before it,
  // so one file alone has the times the CLI gives it.


  function loadTranscript() {
    if (overlay) return;
    try {
      const stored = JSON.parse(remembered(keys.transcript) || 'null');
      if (stored && stored.version === 1 && Array.isArray(stored.lines)) transcript = stored;
    } catch (error) {
      transcript = emptyTranscript();
    }
    transcript.lines.forEach(showLine);
  }

  function saveTranscript() {
    // The overlay shows captions; the page the user keeps open keeps them.
    if (overlay) return;
    if (!remember(keys.transcript, JSON.stringify(transcript)) && !storageWarned) {
      storageWarned = true;
      setStatus('The browser\u2019s storage is full: lines from now on are lost on reload. Download the transcript to keep it.', 'error');
    }
  }

  // A new source of lines: a live stream whose first audio was captured at `startedAt` (ms
  // since the epoch), or a file (`startedAt` null). `label` names it in each line's tooltip.
  function beginSource(startedAt, label) {
    const now = Date.now();
    if (transcript.origin === null) transcript.origin = startedAt === null ? now : startedAt;
    const offset = startedAt === null
      ? transcript.end
      : Math.max((startedAt - transcript.origin) / 1000, transcript.end);
    return { offset, label };
  }

  // The words of a line, as {word, start, end}; a line without word times (a server that did
  // not send them) gets its words spread over its span.
  function wordsOf(line) {
    if (Array.isArray(line.words) && line.words.length > 0) {
      return line.words.map((word) => ({ word: word[0], start: word[1], end: word[2] }));
    }
    const texts = line.text.split(/\s+/).filter((text) => text !== '');
    const span = Math.max(line.end - line.start, 0.3 * texts.length);
    return texts.map((text, index) => ({
      word: text,
      start: line.start + span * index / texts.length,
      end: line.start + span * (index + 1) / texts.length,
    }));
  }

  // Adds a finished line: `words` as the server sent them ({word, start, end} in seconds from
  // the source's start), or nothing.
  function addLine(source, text, words) {
    const timed = Array.isArray(words) ? words.filter((word) => typeof word.word === 'string'
      && Number.isFinite(word.start) && Number.isFinite(word.end)) : [];
    const placed = timed.map((word) => [word.word, source.offset + word.start, source.offset + word.end]);
    const from = placed.length > 0 ? placed[0][1] : Math.max(transcript.end, source.offset);
    const end = placed.length > 0 ? placed[placed.length - 1][2] : from;
    const line = { start: from, end, text, words: placed, at: Date.now(), label: source.label };
    transcript.lines.push(line);
    transcript.end = Math.max(transcript.end, end);
    showLine(line);
    saveTranscript();
    if (overlay) {
      // The overlay shows two lines: it keeps a few.
      transcript.lines = transcript.lines.slice(-4);
      while (finals.children.length > 4) finals.removeChild(finals.firstChild);
    }
    return line;
  }

  function showLine(line) {
    const row = document.createElement('div');
    row.className = 'line';
    const time = document.createElement('time');
    time.textContent = clock(line.start);
    time.dateTime = 'PT' + Math.max(Math.floor(line.start), 0) + 'S';
    const when = new Date(line.at).toLocaleTimeString();
    row.title = line.label ? line.label + ', ' + when : when;
    const text = document.createElement('p');
    text.textContent = line.text;
    row.append(time, text);
    finals.appendChild(row);
    row.scrollIntoView({ block: 'nearest' });
  }

  function clearTranscript() {
    if (transcript.lines.length === 0) return;
    if (!window.confirm('Clear the transcript? Its ' + transcript.lines.length + ' lines are removed from this page and from the browser\u2019s storage.')) return;
    transcript = emptyTranscript();
    finals.textContent = '';
    remember(keys.transcript, null);
    storageWarned = false;
    setStatus('The transcript was cleared.');
  }

  function download(extension, text, type) {
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
    const blob = new Blob([text], { type: type + ';charset=utf-8' });
    const link = document.createElement('a');
    const address = URL.createObjectURL(blob);
    link.setAttribute('href', address);
    link.download = 'transcript-' + stamp + '.' + extension;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(address), 10000);
  }

  async function copyAll() {
    const text = plainText();
    try {
      await navigator.clipboard.writeText(text);
    } catch (error) {
      // Without the asynchronous clipboard (an http:// page on another host), the old way.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.appendChild(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setStatus('Copied ' + transcript.lines.length + (transcript.lines.length === 1 ? ' line.' : ' lines.'));
  }

  // ---------------------------------------------------------------------------------------
  // Status and addresses.

  // The live state for the status line and for whoever watches the page (tests, styles):
  // idle, connecting, listening, reconnecting, stopping.
  function setState(state) {
    document.body.dataset.live = state;
  }

  function setStatus(text, kind) {
    statusLine.textContent = text;
    statusLine.dataset.kind = kind || 'info';
  }

  // While the page starts or stops listening the button does nothing, but stays focusable: a
  // disabled button would drop a keyboard user's focus to the top of the page.
  function setButton(recording, busy) {
    toggle.textContent = recording ? 'Stop' : 'Start';
    toggle.setAttribute('aria-pressed', recording ? 'true' : 'false');
    toggle.setAttribute('aria-disabled', busy ? 'true' : 'false');
  }

  function toggleBusy() {
    return toggle.getAttribute('aria-disabled') === 'true';
  }

  function socketURL() {
    const url = new URL(location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.search = '';
    url.hash = '';
    if (token) url.searchParams.set('token', token);
    return url.href;
  }

  // An address of the server under whatever prefix the page is served at: the page is the
  // server's root, whether its address ends in a slash (`/captions/`) or not (`/captions`).
  function serverURL(path) {
    const url = new URL(location.href);
    url.pathname = url.pathname.replace(/\/?$/, '/' + path);
    url.search = '';
    url.hash = '';
    return url.href;
  }

  function readinessURL() {
    return serverURL('readyz');
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
  const loadingMessage = 'The server is still loading its speech model. Try again in a moment.';

  // A WebSocket refused during the handshake only reports "closed" (1006) to the page, so ask
  // /readyz why, and say what is known about the token.
  async function refusedMessage() {
    if (tokenRequired && !token) return tokenMessage();
    try {
      const response = await fetch(readinessURL(), { cache: 'no-store' });
      if (response.status === 503) {
        const report = await response.json().catch(() => ({}));
        if (report.status === 'full') return busyMessage;
        if (report.status === 'preparing') return loadingMessage;
        return 'The server cannot take sessions now (' + (report.status || 'unavailable') + ').';
      }
    } catch (error) {
      return 'The server cannot be reached. Is transcribe serve still running?';
    }
    if (tokenRequired) return tokenMessage();
    return 'The server refused the connection.';
  }

  // ---------------------------------------------------------------------------------------
  // Engines and languages.

  function chosenLanguage() {
    const code = languageChoice.value || settings.language || 'en';
    return languages.find((language) => language.code === code) || languages[0];
  }

  function showEngine() {
    const language = chosenLanguage();
    engineLine.textContent = (language.engine ? language.engine + ' \u00b7 ' : '') + language.name;
  }

  function setUpLanguages() {
    for (const language of languages) {
      const option = document.createElement('option');
      option.value = language.code;
      option.textContent = language.name;
      languageChoice.appendChild(option);
    }
    const saved = remembered(keys.language);
    const initial = languages.some((language) => language.code === saved) ? saved : settings.language;
    languageChoice.value = languages.some((language) => language.code === initial) ? initial : languages[0].code;
    languageLabel.hidden = languages.length < 2;
    showEngine();
    languageChoice.addEventListener('change', () => {
      remember(keys.language, languageChoice.value);
      showEngine();
      // A running stream goes on in the new language: a new stream takes over.
      if (run && !run.stopping) replaceLink();
    });
  }

  // ---------------------------------------------------------------------------------------
  // Microphones: the browser names them only once the page may use one.

  async function listDevices() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.enumerateDevices) return;
    let devices;
    try {
      devices = (await navigator.mediaDevices.enumerateDevices()).filter((device) => device.kind === 'audioinput');
    } catch (error) {
      return;
    }
    const wanted = (run && run.deviceId) || remembered(keys.device) || '';
    deviceChoice.textContent = '';
    const fallback = document.createElement('option');
    fallback.value = '';
    fallback.textContent = 'Default microphone';
    deviceChoice.appendChild(fallback);
    devices.forEach((device, index) => {
      // Before permission a browser lists devices without ids or names.
      if (!device.deviceId || device.deviceId === 'default') return;
      const option = document.createElement('option');
      option.value = device.deviceId;
      option.textContent = device.label || 'Microphone ' + (index + 1);
      deviceChoice.appendChild(option);
    });
    deviceChoice.value = Array.from(deviceChoice.options).some((option) => option.value === wanted) ? wanted : '';
  }

  async function openMicrophone(deviceId) {
    // The recognizer wants the microphone as it is: the browser's gain control clipped
    // speech and cost words when tried, and its noise suppression changes the spectrum.
    const audio = { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false };
    if (deviceId) {
      try {
        return await navigator.mediaDevices.getUserMedia({ audio: Object.assign({ deviceId: { exact: deviceId } }, audio) });
      } catch (error) {
        // The remembered microphone is gone: the default one instead.
        if (error.name !== 'OverconstrainedError' && error.name !== 'NotFoundError') throw error;
        remember(keys.device, null);
      }
    }
    return navigator.mediaDevices.getUserMedia({ audio });
  }

  function trackDevice(stream) {
    const track = stream.getAudioTracks()[0];
    const id = track && track.getSettings ? track.getSettings().deviceId : undefined;
    return id || '';
  }

  // ---------------------------------------------------------------------------------------
  // Live: one run from Start to Stop (the microphone, the worklet, the level meter) and the
  // WebSocket streams it feeds ("links"). A dropped link is replaced, after a wait that doubles
  // each time, while the microphone keeps going; what was said stays on the page.

  function meter(current) {
    const samples = new Float32Array(current.analyser.fftSize);
    const tick = () => {
      if (run !== current || current.audioReleased) { level.value = 0; return; }
      current.analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      const decibels = 20 * Math.log10(Math.sqrt(sum / samples.length) + 1e-9);
      // -60 dBFS and below reads as nothing, full scale as full.
      level.value = Math.min(1, Math.max(0, (decibels + 60) / 60));
      current.meterFrame = requestAnimationFrame(tick);
    };
    tick();
  }

  function connectSource(current, stream) {
    current.stream = stream;
    current.deviceId = trackDevice(stream);
    current.source = current.context.createMediaStreamSource(stream);
    current.source.connect(current.node);
    current.source.connect(current.analyser);
  }

  function releaseAudio(current) {
    if (current.audioReleased) return;
    current.audioReleased = true;
    cancelAnimationFrame(current.meterFrame);
    level.value = 0;
    current.stream.getTracks().forEach((track) => track.stop());
    current.source.disconnect();
    current.node.port.onmessage = null;
    current.node.disconnect();
    current.context.close().catch(() => {});
  }

  // A frame from the worklet: to the open link, or kept (the newest 5 s) until one opens.
  function sendFrame(current, frame) {
    const link = current.link;
    if (link && link.configured && link.socket.readyState === WebSocket.OPEN) {
      if (link.startedAt === null) link.startedAt = frame.at;
      link.socket.send(frame.data);
    } else {
      current.queue.push(frame);
      if (current.queue.length > maxQueuedFrames) current.queue.shift();
    }
  }

  function openLink(current) {
    const socket = new WebSocket(socketURL());
    socket.binaryType = 'arraybuffer';
    const link = {
      socket, opened: false, configured: false, replied: false, serverError: null,
      startedAt: null, source: null, language: chosenLanguage(),
    };
    current.link = link;
    socket.onopen = () => {
      link.opened = true;
      // The audio is at the context's own rate (the browser's, usually 44.1 or 48 kHz): the
      // server converts it to what the recognizer needs.
      const config = { sample_rate: current.context.sampleRate };
      if (languages.length > 1) config.language = link.language.code;
      socket.send(JSON.stringify({ config }));
      link.configured = true;
      const queued = current.queue;
      current.queue = [];
      queued.forEach((frame) => sendFrame(current, frame));
      if (!current.stopping) {
        setButton(true, false);
        setState('listening');
        setStatus(current.everOpened ? 'Listening again\u2026' : 'Listening\u2026 speak now.');
      }
      current.everOpened = true;
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let reply;
      try { reply = JSON.parse(event.data); } catch (error) { return; }
      showReply(current, link, reply);
    };
    socket.onclose = (event) => { linkClosed(current, link, event); };
  }

  // The link's lines begin at its first audio.
  function sourceOf(link) {
    if (!link.source) {
      link.source = beginSource(link.startedAt === null ? Date.now() : link.startedAt,
        'live, ' + link.language.name);
    }
    return link.source;
  }

  function setPartial(text) {
    partial.textContent = text;
    captions.dataset.speaking = text === '' ? 'false' : 'true';
  }

  function showReply(current, link, reply) {
    if (typeof reply.error === 'string') {
      link.serverError = reply.error;
      return;
    }
    if (!link.replied) {
      link.replied = true;
      current.everReplied = true;
      // The server answers: a later drop starts waiting from 1 s again.
      current.attempts = 0;
    }
    if (typeof reply.partial === 'string') {
      if (link === current.link) setPartial(reply.partial);
    } else if (typeof reply.text === 'string') {
      if (link === current.link) setPartial('');
      if (reply.text.trim() !== '') addLine(sourceOf(link), reply.text, reply.result);
    }
  }

  // Ends the link: `{"eof" : 1}` asks for its last words, and the server closes it.
  function endLink(link) {
    if (link.socket.readyState === WebSocket.OPEN) link.socket.send('{"eof" : 1}');
    else link.socket.close();
    // The server answers eof with the last words and closes; don't wait forever.
    link.closeTimer = setTimeout(() => link.socket.close(), closeAfterEndMilliseconds);
  }

  // A new link takes over from the current one (another language), which finishes its words.
  function replaceLink() {
    const current = run;
    const old = current.link;
    clearTimeout(current.retryTimer);
    if (old) {
      old.replaced = true;
      endLink(old);
    }
    setPartial('');
    setState('connecting');
    setStatus('Switching to ' + chosenLanguage().name + '\u2026');
    openLink(current);
  }

  async function linkClosed(current, link, event) {
    clearTimeout(link.closeTimer);
    if (link.replaced || run !== current || current.link !== link) return;
    current.link = null;
    setPartial('');
    if (current.stopping) {
      finishRun(current, await closedMessage(current, link, event));
      return;
    }
    // Refused (or turned away, 1013) before the server ever answered: said, not retried.
    if (!current.everReplied || (!link.opened && tokenRequired && !token)) {
      finishRun(current, await closedMessage(current, link, event));
      return;
    }
    let reason;
    if (event.code === 1013) reason = busyMessage;
    else if (link.serverError) reason = 'The server ended the session: ' + link.serverError;
    else if (!link.opened) reason = await refusedMessage();
    else reason = 'The connection was lost.';
    if (run !== current || current.stopping) return;
    scheduleReconnect(current, reason);
  }

  function scheduleReconnect(current, reason) {
    const wait = Math.min(maxReconnectMilliseconds, 1000 * Math.pow(2, current.attempts));
    current.attempts += 1;
    setState('reconnecting');
    const sentence = /[.!?\u2026]$/.test(reason) ? reason : reason + '.';
    setStatus(sentence + ' Reconnecting in ' + Math.round(wait / 1000) + ' s\u2026', 'error');
    current.retryTimer = setTimeout(() => {
      if (run !== current || current.stopping) return;
      setState('connecting');
      setStatus('Reconnecting\u2026');
      openLink(current);
    }, wait);
  }

  async function closedMessage(current, link, event) {
    if (event.code === 1013) return [busyMessage, 'error'];
    if (link.serverError) return ['The server ended the session: ' + link.serverError, 'error'];
    if (current.stopping && (!link.opened || event.code === 1000 || event.code === 1005)) return ['Stopped.', 'info'];
    if (!link.opened) return [await refusedMessage(), 'error'];
    if (event.code === 1000 || event.code === 1001) {
      return ['The server ended the session' + (event.reason ? ': ' + event.reason : '.'), 'error'];
    }
    return ['The connection closed (' + event.code + (event.reason ? ': ' + event.reason : '') + ').', 'error'];
  }

  function finishRun(current, message) {
    clearTimeout(current.retryTimer);
    releaseAudio(current);
    if (run === current) run = null;
    setPartial('');
    setButton(false, false);
    setState('idle');
    setStatus(message[0], message[1]);
  }

  async function start() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.AudioWorkletNode) {
      setStatus('This browser cannot use the microphone on this page: browsers allow it only on https:// pages and on http://localhost.', 'error');
      return;
    }
    setButton(false, true);
    setState('connecting');
    setStatus('Asking for the microphone\u2026');
    let stream;
    try {
      stream = await openMicrophone(deviceChoice.value || remembered(keys.device));
    } catch (error) {
      setButton(false, false);
      setState('idle');
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
      setState('idle');
      setStatus('The audio encoder could not start: ' + error.message, 'error');
      return;
    } finally {
      URL.revokeObjectURL(moduleURL);
    }
    const node = new AudioWorkletNode(context, 'pcm-encoder', {
      numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
      channelCount: 1, channelCountMode: 'explicit', channelInterpretation: 'speakers',
    });
    // The node outputs silence; connecting it makes every browser keep pulling audio through it.
    node.connect(context.destination);
    const analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    const current = {
      context, node, analyser, stream: null, source: null, deviceId: '', link: null, queue: [],
      stopping: false, everOpened: false, everReplied: false, attempts: 0, retryTimer: null, meterFrame: 0,
    };
    connectSource(current, stream);
    run = current;
    // The names of the microphones, now that the page may use one.
    listDevices();
    meter(current);
    node.port.onmessage = (event) => {
      if (event.data === 'flushed') {
        releaseAudio(current);
        if (current.link) endLink(current.link);
        else finishRun(current, ['Stopped.', 'info']);
      } else {
        // A frame holds the 100 ms before it arrives.
        sendFrame(current, { data: event.data, at: Date.now() - 100 });
      }
    };
    setStatus('Connecting\u2026');
    openLink(current);
  }

  function stop() {
    const current = run;
    if (!current || current.stopping) return;
    current.stopping = true;
    clearTimeout(current.retryTimer);
    setButton(false, true);
    setState('stopping');
    setStatus('Finishing the last words\u2026');
    current.node.port.postMessage('flush');
  }

  // Another microphone while listening: the new one feeds the same worklet and stream.
  async function switchDevice() {
    remember(keys.device, deviceChoice.value || null);
    const current = run;
    if (!current || current.stopping) return;
    let stream;
    try {
      stream = await openMicrophone(deviceChoice.value);
    } catch (error) {
      setStatus(microphoneMessage(error), 'error');
      return;
    }
    if (run !== current || current.audioReleased) {
      stream.getTracks().forEach((track) => track.stop());
      return;
    }
    current.source.disconnect();
    current.stream.getTracks().forEach((track) => track.stop());
    connectSource(current, stream);
  }

  // ---------------------------------------------------------------------------------------
  // Files: each sent in turn to /v1/audio/transcriptions with stream=true; its lines appear as
  // the server decodes them, their times (asked for with timestamp_granularities[]=word)
  // showing how far it has got.

  function setFileStatus(text, kind) {
    fileStatus.textContent = text;
    fileStatus.dataset.kind = kind || 'info';
  }

  // Each file chosen has an item in the list, which says how it went.
  function addFiles(files) {
    for (const file of files) {
      const item = document.createElement('li');
      item.textContent = (file.name || 'audio') + ': waiting';
      fileList.appendChild(item);
      waiting.push({ file, item });
    }
    if (!fileBusy) nextFile();
  }

  async function nextFile() {
    const next = waiting.shift();
    if (!next) {
      fileBusy = false;
      document.body.dataset.files = 'idle';
      return;
    }
    fileBusy = true;
    document.body.dataset.files = 'busy';
    await transcribeFile(next.file, next.item);
    nextFile();
  }

  // The file's length in seconds as the browser reads it, or null.
  function mediaDuration(file) {
    return new Promise((resolve) => {
      const media = document.createElement('audio');
      const address = URL.createObjectURL(file);
      let timer = null;
      const done = (value) => {
        clearTimeout(timer);
        media.removeAttribute('src');
        URL.revokeObjectURL(address);
        resolve(Number.isFinite(value) && value > 0 ? value : null);
      };
      timer = setTimeout(() => done(null), 5000);
      media.preload = 'metadata';
      media.onloadedmetadata = () => done(media.duration);
      media.onerror = () => done(null);
      media.setAttribute('src', address);
    });
  }

  function showProgress(name, item, fraction, text) {
    fileProgress.hidden = false;
    if (fraction === null) fileProgress.removeAttribute('value');
    else fileProgress.value = Math.min(1, Math.max(0, fraction));
    const more = waiting.length > 0 ? ' (' + waiting.length + ' more waiting)' : '';
    setFileStatus(name + ': ' + text + more);
    item.textContent = name + ': ' + text;
  }

  function uploadFailure(status, body) {
    let message = '';
    try { message = JSON.parse(body).error.message || ''; } catch (error) { message = ''; }
    if (status === 401) return tokenMessage();
    if (status === 0) return 'The server cannot be reached. Is transcribe serve still running?';
    return message || 'The server answered ' + status + '.';
  }

  async function transcribeFile(file, item) {
    const name = file.name || 'audio';
    const outcome = (text, kind) => {
      item.textContent = name + ': ' + text;
      item.dataset.kind = kind || 'info';
      setFileStatus(name + ': ' + text, kind);
    };
    showProgress(name, item, null, 'reading\u2026');
    const duration = await mediaDuration(file);
    const source = beginSource(null, name);
    const language = chosenLanguage();
    const form = new FormData();
    form.append('file', file, name);
    form.append('stream', 'true');
    form.append('timestamp_granularities[]', 'word');
    if (languages.length > 1) form.append('language', language.code);
    performance.mark('captions:file-start');
    await new Promise((resolve) => {
      const request = new XMLHttpRequest();
      let read = 0;
      let lines = 0;
      let failure = null;
      let finished = false;
      const decoded = (seconds) => {
        if (duration === null) {
          showProgress(name, item, null, clock(seconds) + ' decoded');
        } else {
          showProgress(name, item, seconds / duration, Math.min(100, Math.round(100 * seconds / duration)) + ' % (' + clock(seconds) + ' of ' + clock(duration) + ')');
        }
      };
      // Each server-sent event is `data: {json}` and a blank line.
      const readEvents = () => {
        const text = request.responseText;
        let end;
        while ((end = text.indexOf('\n\n', read)) >= 0) {
          const block = text.slice(read, end);
          read = end + 2;
          const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
          if (data === '') continue;
          let event;
          try { event = JSON.parse(data); } catch (error) { continue; }
          if (event.type === 'transcript.text.delta' && typeof event.delta === 'string') {
            const words = Array.isArray(event.words) ? event.words : [];
            if (event.delta.trim() !== '') {
              const line = addLine(source, event.delta.trim(), words);
              lines += 1;
              if (lines === 1) performance.mark('captions:file-first-line');
              decoded(line.end - source.offset);
            }
          } else if (event.type === 'transcript.text.done') {
            finished = true;
          } else if (event.error) {
            failure = event.error.message || 'recognition failed';
          }
        }
      };
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) showProgress(name, item, null, 'sending, ' + Math.round(100 * event.loaded / event.total) + ' %');
      };
      request.upload.onload = () => {
        performance.mark('captions:file-sent');
        showProgress(name, item, duration === null ? null : 0, 'decoding\u2026');
      };
      request.onprogress = () => { if (request.status === 200) readEvents(); };
      request.onloadend = () => {
        if (request.status === 200) {
          readEvents();
          if (failure) {
            outcome(failure, 'error');
          } else if (finished) {
            fileProgress.value = 1;
            outcome('done, ' + lines + (lines === 1 ? ' line.' : ' lines.'));
          } else {
            outcome('the answer ended early.', 'error');
          }
        } else {
          fileProgress.hidden = true;
          outcome(uploadFailure(request.status, request.responseText), 'error');
        }
        // The next file starts after this one's whole length, not its last word.
        if (duration !== null) transcript.end = Math.max(transcript.end, source.offset + duration);
        resolve();
      };
      request.open('POST', serverURL('v1/audio/transcriptions'));
      if (token) request.setRequestHeader('Authorization', 'Bearer ' + token);
      request.send(form);
    });
  }

  // ---------------------------------------------------------------------------------------
  // Reading: the caption size, the caption view (full screen) and the keys.

  function setSize(value) {
    const size = Math.min(4, Math.max(1, Number(value) || 1.5));
    document.documentElement.style.setProperty('--caption-size', size + 'rem');
    sizeControl.value = String(size);
  }

  function setView(name) {
    if (name) {
      document.body.dataset.view = name;
      document.documentElement.dataset.view = name;
    } else {
      delete document.body.dataset.view;
      delete document.documentElement.dataset.view;
    }
  }

  function enterCaptionView() {
    setView('captions');
    if (document.fullscreenEnabled && !document.fullscreenElement) {
      document.documentElement.requestFullscreen().catch(() => {});
    }
    document.getElementById('leave').focus();
  }

  function leaveCaptionView() {
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    setView(null);
    document.getElementById('full-screen').focus();
  }

  // Whether the control with the focus uses Space itself (buttons, the file input, selects
  // and links do), so the page's Space shortcut leaves it alone.
  function usesSpace(target) {
    return target instanceof HTMLElement && (target.isContentEditable
      || ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'A'].includes(target.tagName));
  }

  // Whether the control with the focus uses letter keys itself (text fields type them, a
  // select jumps to an option), so F is not taken from it. Buttons, the file input and the
  // size slider don't: F works there, where a keyboard user's focus usually is.
  function usesLetters(target) {
    if (!(target instanceof HTMLElement)) return false;
    if (target.isContentEditable || ['SELECT', 'TEXTAREA'].includes(target.tagName)) return true;
    return target.tagName === 'INPUT'
      && !['range', 'file', 'checkbox', 'radio', 'button', 'submit', 'reset', 'color'].includes(target.type);
  }

  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || overlay) return;
    if (event.key === 'Escape' && document.body.dataset.view === 'captions') {
      leaveCaptionView();
      return;
    }
    if (event.repeat) return;
    if (event.key === ' ' && !usesSpace(event.target)) {
      event.preventDefault();
      toggle.click();
    } else if ((event.key === 'f' || event.key === 'F') && !usesLetters(event.target)) {
      event.preventDefault();
      if (document.body.dataset.view === 'captions') leaveCaptionView();
      else enterCaptionView();
    }
  });
  document.addEventListener('fullscreenchange', () => {
    if (!document.fullscreenElement && document.body.dataset.view === 'captions' && view !== 'captions') setView(null);
  });

  // ---------------------------------------------------------------------------------------
  // Wiring.

  toggle.addEventListener('click', () => {
    if (toggleBusy()) return;
    if (run) stop();
    else start();
  });
  deviceChoice.addEventListener('change', switchDevice);
  fileInput.addEventListener('change', () => {
    addFiles(Array.from(fileInput.files));
    fileInput.value = '';
  });
  // Files dropped anywhere on the page are transcribed, not only on the drop zone (which
  // lights up while they are held over the page): dropped beside it, the browser would
  // ignore them or open the file in place of the page. The overlay takes none.
  const carriesFiles = (event) => !overlay && event.dataTransfer
    && Array.from(event.dataTransfer.types).includes('Files');
  document.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    dropZone.dataset.over = 'true';
  });
  // Leaving the window (no element entered) ends the highlight; moving between the page's
  // elements does not.
  document.addEventListener('dragleave', (event) => {
    if (event.relatedTarget === null) dropZone.dataset.over = 'false';
  });
  document.addEventListener('drop', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    dropZone.dataset.over = 'false';
    addFiles(Array.from(event.dataTransfer.files));
  });
  document.getElementById('copy').addEventListener('click', copyAll);
  document.getElementById('download-txt').addEventListener('click', () => download('txt', plainText(), 'text/plain'));
  document.getElementById('download-srt').addEventListener('click', () => download('srt', subtitles('srt'), 'application/x-subrip'));
  document.getElementById('download-vtt').addEventListener('click', () => download('vtt', subtitles('vtt'), 'text/vtt'));
  document.getElementById('clear').addEventListener('click', clearTranscript);
  sizeControl.addEventListener('input', () => {
    setSize(sizeControl.value);
    remember(keys.size, sizeControl.value);
  });
  document.getElementById('full-screen').addEventListener('click', enterCaptionView);
  document.getElementById('leave').addEventListener('click', leaveCaptionView);
  if (navigator.mediaDevices && navigator.mediaDevices.addEventListener) {
    navigator.mediaDevices.addEventListener('devicechange', listDevices);
  }

  setState('idle');
  document.body.dataset.files = 'idle';
  setSize(remembered(keys.size) || sizeControl.value);
  setUpLanguages();
  listDevices();
  loadTranscript();
  if (view === 'overlay' || view === 'captions') setView(view);
  if (overlay) start();
})();
