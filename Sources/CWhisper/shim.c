// See include/transcribe_whisper.h.
#include "transcribe_whisper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<whisper.h>)
#include <dlfcn.h>
#include <pthread.h>
#include <whisper.h>

// Every whisper.cpp function the shim calls, found in the library once it is opened.
#define TRANSCRIBE_WHISPER_FUNCTIONS(X)          \
  X(whisper_context_default_params)              \
  X(whisper_init_from_file_with_params_no_state) \
  X(whisper_init_state)                          \
  X(whisper_free)                                \
  X(whisper_free_state)                          \
  X(whisper_is_multilingual)                     \
  X(whisper_full_default_params)                 \
  X(whisper_full_with_state)                     \
  X(whisper_full_n_segments_from_state)          \
  X(whisper_full_n_tokens_from_state)            \
  X(whisper_full_get_token_data_from_state)      \
  X(whisper_full_get_token_text_from_state)      \
  X(whisper_full_get_segment_no_speech_prob_from_state) \
  X(whisper_token_eot)                           \
  X(whisper_pcm_to_mel_with_state)               \
  X(whisper_lang_auto_detect_with_state)         \
  X(whisper_lang_max_id)                         \
  X(whisper_lang_id)                             \
  X(whisper_lang_str)                            \
  X(whisper_lang_str_full)                       \
  X(whisper_log_set)

static struct {
#define TRANSCRIBE_WHISPER_FIELD(name) __typeof__(name) *name;
  TRANSCRIBE_WHISPER_FUNCTIONS(TRANSCRIBE_WHISPER_FIELD)
#undef TRANSCRIBE_WHISPER_FIELD
} api;

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static const char *library_path;
static int library_status = -1;
static char library_reason[512];

struct transcribe_whisper_model {
  struct whisper_context *context;
};

struct transcribe_whisper_decoder {
  transcribe_whisper_model *model;
  // The state of the last decode, which its tokens are read from. Every decode and detection
  // gets a fresh state (10-25 ms to make): whisper.cpp 1.8.5 decodes differently in a state
  // that decoded or detected before (with a fitted encoder window, the same audio gave other,
  // often worse or empty, text depending on what the state had decoded), and a stream must give
  // the same words every run.
  struct whisper_state *state;
};

// whisper.cpp and ggml write their progress to stderr; transcribe reports its own errors.
static void silent_log(enum ggml_log_level level, const char *text, void *user_data) {
  (void)level;
  (void)text;
  (void)user_data;
}

static void open_library(void) {
  // libgomp's worker threads spin while they wait unless told otherwise; spinning threads of
  // several decoders (and other processes) starve each other. libgomp reads this once, when it
  // is loaded with the library.
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  void *handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    snprintf(library_reason, sizeof library_reason, "%s", error ? error : library_path);
    return;
  }
#define TRANSCRIBE_WHISPER_LOOKUP(name)                                                       \
  api.name = (__typeof__(name) *)dlsym(handle, #name);                                        \
  if (!api.name) {                                                                            \
    snprintf(library_reason, sizeof library_reason, "%s has no %s (whisper.cpp 1.8 or later " \
             "is needed)", library_path, #name);                                              \
    dlclose(handle);                                                                          \
    return;                                                                                   \
  }
  TRANSCRIBE_WHISPER_FUNCTIONS(TRANSCRIBE_WHISPER_LOOKUP)
#undef TRANSCRIBE_WHISPER_LOOKUP
  if (!getenv("TRANSCRIBE_WHISPER_LOG")) api.whisper_log_set(silent_log, NULL);
  library_status = 0;
}

int transcribe_whisper_compiled(void) { return 1; }

int transcribe_whisper_open_library(const char *path, char *reason, size_t reason_size) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  if (!library_path) library_path = strdup(path);
  pthread_mutex_unlock(&lock);
  pthread_once(&library_once, open_library);
  if (library_status != 0 && reason && reason_size) snprintf(reason, reason_size, "%s", library_reason);
  return library_status;
}

int transcribe_whisper_language_count(void) {
  return library_status == 0 ? api.whisper_lang_max_id() + 1 : 0;
}

const char *transcribe_whisper_language_code(int id) {
  if (library_status != 0 || id < 0 || id > api.whisper_lang_max_id()) return NULL;
  return api.whisper_lang_str(id);
}

const char *transcribe_whisper_language_name(int id) {
  if (library_status != 0 || id < 0 || id > api.whisper_lang_max_id()) return NULL;
  return api.whisper_lang_str_full(id);
}

int transcribe_whisper_language_id(const char *code) {
  if (library_status != 0 || !code) return -1;
  // whisper_lang_id logs an error for a name it does not know: ask only for known ones.
  for (int id = 0; id <= api.whisper_lang_max_id(); id++) {
    if (strcmp(api.whisper_lang_str(id), code) == 0 || strcmp(api.whisper_lang_str_full(id), code) == 0) {
      return id;
    }
  }
  return -1;
}

transcribe_whisper_model *transcribe_whisper_model_load(const char *path) {
  if (library_status != 0) return NULL;
  struct whisper_context_params params = api.whisper_context_default_params();
  params.use_gpu = false;
  struct whisper_context *context = api.whisper_init_from_file_with_params_no_state(path, params);
  if (!context) return NULL;
  transcribe_whisper_model *model = malloc(sizeof *model);
  if (!model) {
    api.whisper_free(context);
    return NULL;
  }
  model->context = context;
  return model;
}

void transcribe_whisper_model_free(transcribe_whisper_model *model) {
  if (!model) return;
  api.whisper_free(model->context);
  free(model);
}

bool transcribe_whisper_model_is_multilingual(const transcribe_whisper_model *model) {
  return model && api.whisper_is_multilingual(model->context) != 0;
}

transcribe_whisper_decoder *transcribe_whisper_decoder_make(transcribe_whisper_model *model) {
  if (!model) return NULL;
  transcribe_whisper_decoder *decoder = malloc(sizeof *decoder);
  if (!decoder) return NULL;
  decoder->model = model;
  decoder->state = NULL;
  return decoder;
}

void transcribe_whisper_decoder_free(transcribe_whisper_decoder *decoder) {
  if (!decoder) return;
  if (decoder->state) api.whisper_free_state(decoder->state);
  free(decoder);
}

int transcribe_whisper_detect_language(
    transcribe_whisper_decoder *decoder, const float *samples, int count, int threads,
    float *probability) {
  struct whisper_context *context = decoder->model->context;
  struct whisper_state *state = api.whisper_init_state(context);
  if (!state) return -1;
  int languages = api.whisper_lang_max_id() + 1;
  float *probabilities = calloc((size_t)languages, sizeof(float));
  int id = -1;
  if (probabilities && api.whisper_pcm_to_mel_with_state(context, state, samples, count, threads) == 0) {
    id = api.whisper_lang_auto_detect_with_state(context, state, 0, threads, probabilities);
    if (id >= 0 && probability) *probability = probabilities[id];
  }
  free(probabilities);
  api.whisper_free_state(state);
  return id;
}

int transcribe_whisper_decode(
    transcribe_whisper_decoder *decoder, const float *samples, int count,
    const transcribe_whisper_settings *settings) {
  if (decoder->state) api.whisper_free_state(decoder->state);
  decoder->state = api.whisper_init_state(decoder->model->context);
  if (!decoder->state) return -1;
  bool beam = settings->beam_size > 1;
  struct whisper_full_params params =
      api.whisper_full_default_params(beam ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY);
  if (beam) params.beam_search.beam_size = settings->beam_size;
  params.n_threads = settings->threads > 0 ? settings->threads : 1;
  params.language = api.whisper_lang_str(settings->language);
  params.detect_language = false;
  params.translate = settings->translate;
  params.audio_ctx = settings->audio_context;
  params.initial_prompt = settings->prompt;
  if (settings->without_fallback) params.temperature_inc = 0.0f;
  // Each piece of audio is an utterance on its own, in one segment, with token times.
  params.no_context = true;
  params.single_segment = true;
  params.token_timestamps = true;
  params.print_progress = false;
  params.print_realtime = false;
  params.print_timestamps = false;
  params.print_special = false;
  return api.whisper_full_with_state(decoder->model->context, decoder->state, params, samples, count);
}

int transcribe_whisper_segment_count(transcribe_whisper_decoder *decoder) {
  return decoder->state ? api.whisper_full_n_segments_from_state(decoder->state) : 0;
}

int transcribe_whisper_token_count(transcribe_whisper_decoder *decoder, int segment) {
  return api.whisper_full_n_tokens_from_state(decoder->state, segment);
}

transcribe_whisper_token transcribe_whisper_token_at(
    transcribe_whisper_decoder *decoder, int segment, int index) {
  struct whisper_context *context = decoder->model->context;
  whisper_token_data data = api.whisper_full_get_token_data_from_state(decoder->state, segment, index);
  transcribe_whisper_token token = {
      .id = data.id,
      .text = api.whisper_full_get_token_text_from_state(context, decoder->state, segment, index),
      .start = data.t0,
      .end = data.t1,
      .probability = data.p,
      .special = data.id >= api.whisper_token_eot(context),
  };
  return token;
}

float transcribe_whisper_segment_no_speech(transcribe_whisper_decoder *decoder, int segment) {
  return api.whisper_full_get_segment_no_speech_prob_from_state(decoder->state, segment);
}

#else

// Built without whisper.h: no Whisper engine in this build.

int transcribe_whisper_compiled(void) { return 0; }

int transcribe_whisper_open_library(const char *path, char *reason, size_t reason_size) {
  (void)path;
  if (reason && reason_size) {
    snprintf(reason, reason_size, "this build of transcribe has no Whisper engine");
  }
  return -1;
}

int transcribe_whisper_language_count(void) { return 0; }
const char *transcribe_whisper_language_code(int id) { (void)id; return NULL; }
const char *transcribe_whisper_language_name(int id) { (void)id; return NULL; }
int transcribe_whisper_language_id(const char *code) { (void)code; return -1; }
transcribe_whisper_model *transcribe_whisper_model_load(const char *path) { (void)path; return NULL; }
void transcribe_whisper_model_free(transcribe_whisper_model *model) { (void)model; }
bool transcribe_whisper_model_is_multilingual(const transcribe_whisper_model *model) {
  (void)model;
  return false;
}
transcribe_whisper_decoder *transcribe_whisper_decoder_make(transcribe_whisper_model *model) {
  (void)model;
  return NULL;
}
void transcribe_whisper_decoder_free(transcribe_whisper_decoder *decoder) { (void)decoder; }
int transcribe_whisper_detect_language(
    transcribe_whisper_decoder *decoder, const float *samples, int count, int threads,
    float *probability) {
  (void)decoder;
  (void)samples;
  (void)count;
  (void)threads;
  (void)probability;
  return -1;
}
int transcribe_whisper_decode(
    transcribe_whisper_decoder *decoder, const float *samples, int count,
    const transcribe_whisper_settings *settings) {
  (void)decoder;
  (void)samples;
  (void)count;
  (void)settings;
  return -1;
}
int transcribe_whisper_segment_count(transcribe_whisper_decoder *decoder) { (void)decoder; return 0; }
int transcribe_whisper_token_count(transcribe_whisper_decoder *decoder, int segment) {
  (void)decoder;
  (void)segment;
  return 0;
}
transcribe_whisper_token transcribe_whisper_token_at(
    transcribe_whisper_decoder *decoder, int segment, int index) {
  (void)decoder;
  (void)segment;
  (void)index;
  transcribe_whisper_token token = {0};
  return token;
}
float transcribe_whisper_segment_no_speech(transcribe_whisper_decoder *decoder, int segment) {
  (void)decoder;
  (void)segment;
  return 0;
}

#endif
