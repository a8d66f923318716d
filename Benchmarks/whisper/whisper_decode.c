// Decodes audio files with whisper.cpp (the library install-dependencies.sh installs) and prints
// one JSON line per file: the text, the language, and the decode time (whisper_full_with_state
// alone: no model load, no file reading).
//
// It loads the model once as a context without state and decodes each file in a fresh state
// (whisper_init_state, whisper_full_with_state), as transcribe's Whisper engine does: a state
// that decoded before decodes the same audio differently (`--reuse-state` keeps one state for
// every file, as this tool did before 2026-11-29).
//
//   lib=/usr/local/lib/transcribe/whisper   (~/.local/lib/transcribe/whisper if not root)
//   cc -O2 -o whisper_decode whisper_decode.c $(pkg-config --cflags transcribe-whisper)
//      -L$lib -Wl,-rpath,$lib -lwhisper -lm       (one line)
//   ./whisper_decode [options] MODEL FILE...
//
// FILE: 16 kHz mono 16-bit PCM, as WAV or headerless (.raw).
// Options:
//   --threads N        decoding threads (2)
//   --beam N           beam search with N beams; 0 = greedy (0)
//   --language CODE    a language code, or "auto" to detect it (en)
//   --translate        write the speech as English (Whisper's translate task)
//   --audio-ctx N      encoder frames to compute (50 per second); 0 = the full 30 s window (0)
//   --fit-audio-ctx M  per file: frames for the file's length (50 per second, rounded up) plus
//                      M more, at most 1500
//   --prompt TEXT      initial prompt
//   --token-times      ask for token timestamps and print each token with its start and end
//   --quiet            silence whisper.cpp's log
//   --reuse-state      decode every file in the same state
//   --detect-first     with --language auto: detect the language on the full 30 s window in a
//                      fresh state, then decode with that language (and --audio-ctx or
//                      --fit-audio-ctx) in another, as transcribe's engine does; the time
//                      printed includes the detection
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "whisper.h"

static void quiet_log(enum ggml_log_level level, const char *text, void *user_data) {
  (void)level;
  (void)text;
  (void)user_data;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// Reads a WAV (PCM 16-bit mono 16 kHz, found by its chunks) or raw s16le file as floats.
static float *read_audio(const char *path, int *count) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "whisper_decode: %s: %s\n", path, strerror(errno));
    return NULL;
  }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  unsigned char *bytes = malloc(size > 0 ? size : 1);
  if (!bytes || fread(bytes, 1, size, file) != (size_t)size) {
    fprintf(stderr, "whisper_decode: %s: cannot read\n", path);
    fclose(file);
    free(bytes);
    return NULL;
  }
  fclose(file);
  const unsigned char *pcm = bytes;
  long pcm_size = size;
  if (size >= 12 && memcmp(bytes, "RIFF", 4) == 0 && memcmp(bytes + 8, "WAVE", 4) == 0) {
    long offset = 12;
    pcm = NULL;
    while (offset + 8 <= size) {
      uint32_t chunk = bytes[offset + 4] | bytes[offset + 5] << 8 | bytes[offset + 6] << 16 |
                       (uint32_t)bytes[offset + 7] << 24;
      if (memcmp(bytes + offset, "fmt ", 4) == 0 && offset + 24 <= size) {
        int format = bytes[offset + 8] | bytes[offset + 9] << 8;
        int channels = bytes[offset + 10] | bytes[offset + 11] << 8;
        uint32_t rate = bytes[offset + 12] | bytes[offset + 13] << 8 | bytes[offset + 14] << 16 |
                        (uint32_t)bytes[offset + 15] << 24;
        int bits = bytes[offset + 22] | bytes[offset + 23] << 8;
        if (format != 1 || channels != 1 || rate != 16000 || bits != 16) {
          fprintf(stderr, "whisper_decode: %s: not 16 kHz mono 16-bit PCM\n", path);
          free(bytes);
          return NULL;
        }
      } else if (memcmp(bytes + offset, "data", 4) == 0) {
        pcm = bytes + offset + 8;
        pcm_size = chunk <= (uint32_t)(size - offset - 8) ? (long)chunk : size - offset - 8;
        break;
      }
      offset += 8 + chunk + (chunk & 1);
    }
    if (!pcm) {
      fprintf(stderr, "whisper_decode: %s: no data chunk\n", path);
      free(bytes);
      return NULL;
    }
  }
  *count = (int)(pcm_size / 2);
  float *samples = malloc(sizeof(float) * (*count > 0 ? *count : 1));
  for (int i = 0; i < *count; i++) {
    int16_t value = (int16_t)(pcm[2 * i] | pcm[2 * i + 1] << 8);
    samples[i] = value / 32768.0f;
  }
  free(bytes);
  return samples;
}

static void print_json_string(const char *text) {
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\') {
      printf("\\%c", *c);
    } else if (*c < 0x20) {
      printf("\\u%04x", *c);
    } else {
      putchar(*c);
    }
  }
  putchar('"');
}

static int usage(void) {
  fprintf(stderr,
          "usage: whisper_decode [--threads N] [--beam N] [--language CODE|auto] [--translate]\n"
          "       [--audio-ctx N | --fit-audio-ctx MARGIN] [--prompt TEXT] [--token-times]\n"
          "       [--quiet] [--reuse-state] [--detect-first] MODEL FILE...\n");
  return 2;
}

int main(int argc, char **argv) {
  int threads = 2, beam = 0, audio_ctx = 0, fit_margin = -1;
  const char *language = "en", *prompt = NULL;
  bool translate = false, token_times = false, quiet = false, reuse_state = false;
  bool detect_first = false;
  // Options may come before or after MODEL and the files; everything else is positional.
  const char **positional = malloc(sizeof(char *) * argc);
  int positional_count = 0;
  for (int index = 1; index < argc; index++) {
    const char *option = argv[index];
    bool has_value = index + 1 < argc;
    if (strncmp(option, "--", 2) != 0) {
      positional[positional_count++] = option;
    } else if (strcmp(option, "--threads") == 0 && has_value) {
      threads = atoi(argv[++index]);
    } else if (strcmp(option, "--beam") == 0 && has_value) {
      beam = atoi(argv[++index]);
    } else if (strcmp(option, "--language") == 0 && has_value) {
      language = argv[++index];
    } else if (strcmp(option, "--translate") == 0) {
      translate = true;
    } else if (strcmp(option, "--audio-ctx") == 0 && has_value) {
      audio_ctx = atoi(argv[++index]);
    } else if (strcmp(option, "--fit-audio-ctx") == 0 && has_value) {
      fit_margin = atoi(argv[++index]);
    } else if (strcmp(option, "--prompt") == 0 && has_value) {
      prompt = argv[++index];
    } else if (strcmp(option, "--token-times") == 0) {
      token_times = true;
    } else if (strcmp(option, "--quiet") == 0) {
      quiet = true;
    } else if (strcmp(option, "--reuse-state") == 0) {
      reuse_state = true;
    } else if (strcmp(option, "--detect-first") == 0) {
      detect_first = true;
    } else {
      return usage();
    }
  }
  if (positional_count < 2) return usage();
  if (quiet) whisper_log_set(quiet_log, NULL);

  // One model (context without state), one decoding state: an engine would create a state per
  // decoder of its pool over the shared context.
  struct whisper_context_params context_params = whisper_context_default_params();
  context_params.use_gpu = false;
  struct whisper_context *context =
      whisper_init_from_file_with_params_no_state(positional[0], context_params);
  if (!context) {
    fprintf(stderr, "whisper_decode: cannot load %s\n", positional[0]);
    return 1;
  }
  struct whisper_state *state = whisper_init_state(context);
  if (!state) {
    fprintf(stderr, "whisper_decode: cannot create a state\n");
    return 1;
  }
  if (strcmp(language, "auto") != 0 && whisper_lang_id(language) < 0) {
    fprintf(stderr, "whisper_decode: unknown language %s\n", language);
    return 2;
  }

  struct whisper_full_params params = whisper_full_default_params(
      beam > 0 ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY);
  params.n_threads = threads;
  params.language = language;  // "auto" detects it
  params.translate = translate;
  params.no_context = true;  // each file on its own
  params.print_progress = false;
  params.print_realtime = false;
  params.print_timestamps = false;
  params.initial_prompt = prompt;
  params.token_timestamps = token_times;
  if (beam > 0) params.beam_search.beam_size = beam;

  double total = 0;
  int failures = 0;
  for (int file = 1; file < positional_count; file++) {
    int count = 0;
    float *samples = read_audio(positional[file], &count);
    if (!samples) {
      failures++;
      continue;
    }
    // The encoder computes audio_ctx frames of 20 ms; by default all 1500 (30 s).
    params.audio_ctx = audio_ctx;
    if (fit_margin >= 0) {
      int frames = (int)ceil(count / 16000.0 * 50.0) + fit_margin;
      params.audio_ctx = frames < 1500 ? frames : 0;
    }
    if (!reuse_state && file > 1) {
      whisper_free_state(state);
      state = whisper_init_state(context);
      if (!state) {
        fprintf(stderr, "whisper_decode: cannot create a state\n");
        return 1;
      }
    }
    double started = now_seconds();
    params.language = language;
    if (detect_first && strcmp(language, "auto") == 0) {
      // The full window (the mel of the whole file, padded to 30 s by whisper.cpp), in a state
      // of its own: a state that detected decodes differently afterwards.
      struct whisper_state *detection = whisper_init_state(context);
      float *probabilities = malloc(sizeof(float) * (whisper_lang_max_id() + 1));
      int id = -1;
      if (detection && probabilities &&
          whisper_pcm_to_mel_with_state(context, detection, samples, count, threads) == 0) {
        id = whisper_lang_auto_detect_with_state(context, detection, 0, threads, probabilities);
      }
      free(probabilities);
      if (detection) whisper_free_state(detection);
      if (id >= 0) params.language = whisper_lang_str(id);
    }
    int status = whisper_full_with_state(context, state, params, samples, count);
    double seconds = now_seconds() - started;
    free(samples);
    if (status != 0) {
      fprintf(stderr, "whisper_decode: %s: whisper_full_with_state failed (%d)\n", positional[file],
              status);
      failures++;
      continue;
    }
    total += seconds;
    // The segments' texts, joined.
    size_t length = 0, capacity = 256;
    char *text = malloc(capacity);
    text[0] = 0;
    int segments = whisper_full_n_segments_from_state(state);
    for (int segment = 0; segment < segments; segment++) {
      const char *piece = whisper_full_get_segment_text_from_state(state, segment);
      size_t piece_length = strlen(piece);
      while (length + piece_length + 1 > capacity) text = realloc(text, capacity *= 2);
      memcpy(text + length, piece, piece_length + 1);
      length += piece_length;
    }
    printf("{\"file\": ");
    print_json_string(positional[file]);
    printf(", \"language\": \"%s\", \"seconds\": %.4f, \"audio_seconds\": %.3f, \"audio_ctx\": %d",
           whisper_lang_str(whisper_full_lang_id_from_state(state)), seconds, count / 16000.0,
           params.audio_ctx);
    printf(", \"text\": ");
    print_json_string(text);
    if (token_times) {
      // Token timestamps, in 10 ms units from the start of the audio.
      printf(", \"tokens\": [");
      bool first = true;
      for (int segment = 0; segment < segments; segment++) {
        int tokens = whisper_full_n_tokens_from_state(state, segment);
        for (int token = 0; token < tokens; token++) {
          whisper_token_data data = whisper_full_get_token_data_from_state(state, segment, token);
          if (data.id >= whisper_token_eot(context)) continue;  // special and timestamp tokens
          printf("%s[", first ? "" : ", ");
          print_json_string(
              whisper_full_get_token_text_from_state(context, state, segment, token));
          printf(", %lld, %lld, %.3f]", (long long)data.t0, (long long)data.t1, data.p);
          first = false;
        }
      }
      printf("]");
    }
    printf("}\n");
    fflush(stdout);
    free(text);
  }
  fprintf(stderr, "whisper_decode: %d files, decode %.3f s\n", positional_count - 1 - failures, total);
  whisper_free_state(state);
  whisper_free(context);
  free(positional);
  return failures ? 1 : 0;
}
