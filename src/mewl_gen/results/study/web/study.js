// The experiment `mewl study` builds: it runs window.STUDY (study-data.js) with jsPsych, from any
// static host or the file system. Nothing here or in study-data.js knows an answer, except the
// practice trials' feedback (items of the train split, never scored).
(function () {
  "use strict";
  const S = window.STUDY;
  const params = new URLSearchParams(window.location.search);

  function esc(text) {
    const div = document.createElement("div");
    div.textContent = String(text);
    return div.innerHTML;
  }

  function stimulus(trial, note) {
    let html = '<div class="study-trial" id="study-trial" data-trial="' + esc(trial.id) + '">';
    for (const group of trial.groups) {
      const style = group.columns ? ' style="grid-template-columns: repeat(' + group.columns + ', auto)"' : "";
      const one = group.pictures.length === 1 ? " study-one" : "";
      html += '<section><h3>' + esc(group.title) + '</h3><div class="study-pictures' + one + '"' + style + '>';
      for (const p of group.pictures) {
        html += '<figure><img src="' + esc(p.src) + '" alt="">' +
          (p.caption ? '<figcaption>' + esc(p.caption) + '</figcaption>' : "") + '</figure>';
      }
      html += '</div></section>';
    }
    return html + (note ? '<p class="study-note">' + esc(note) + '</p>' : "") +
      '<p class="study-question">' + esc(trial.question) + '</p></div>';
  }

  // jsPsych's own template puts a choice into its button as HTML; a dataset's words are text.
  function label(choice) {
    return '<button class="jspsych-btn">' + esc(choice) + "</button>";
  }

  function participantId() {
    for (const name of S.id_parameters) {
      const value = params.get(name) || (window.jatos && jatos.urlQueryParameters && jatos.urlQueryParameters[name]);
      if (value) return [String(value), name];
    }
    if (window.jatos && jatos.workerId) return [String(jatos.workerId), "jatos"];
    const bytes = new Uint8Array(8);
    window.crypto.getRandomValues(bytes);
    return [Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""), "drawn"];
  }

  function run() {
    const [participant, idFrom] = participantId();
    const completion = params.get(S.completion_parameter) ||
      (window.jatos && jatos.urlQueryParameters && jatos.urlQueryParameters[S.completion_parameter]) || "";
    let declined = false;
    const jsPsych = initJsPsych({ on_finish: finish });
    window.jsPsych = jsPsych;
    // Item order and button positions are drawn per participant, from their id: the same id sees the same study.
    jsPsych.randomization.setSeed(S.study + ":" + participant);
    jsPsych.data.addProperties({ study: S.study, participant: participant, participant_from: idFrom });

    function button(trial, phase, note) {
      const shown = jsPsych.randomization.shuffle(trial.options);
      return {
        type: jsPsychHtmlButtonResponse, stimulus: stimulus(trial, note), choices: shown, button_html: label,
        data: { trial: trial.id, phase: phase, shown: shown },
        on_finish: (data) => { data.choice = data.response === null ? null : shown[data.response]; },
      };
    }

    const timeline = [{ type: jsPsychPreload, images: S.images, message: "Loading the pictures…" }];
    timeline.push({
      type: jsPsychHtmlButtonResponse, stimulus: S.texts.consent, choices: ["I agree", "I do not agree"],
      data: { phase: "consent" },
      on_finish: (data) => {
        if (data.response !== 0) {
          declined = true;
          jsPsych.abortExperiment(S.texts.declined);
        }
      },
    });
    timeline.push({ type: jsPsychInstructions, pages: [S.texts.instructions], show_clickable_nav: true,
                    button_label_next: "Start", data: { phase: "instructions" } });
    for (const block of S.blocks) {
      timeline.push({ type: jsPsychInstructions, pages: [block.instructions], show_clickable_nav: true,
                      button_label_next: "Continue", data: { phase: "instructions" } });
      for (const trial of block.practice) {
        timeline.push(button(trial, "practice", "Practice: you will be told the answer."));
        timeline.push({
          type: jsPsychHtmlButtonResponse, choices: ["Continue"], data: { phase: "feedback" },
          stimulus: () => {
            const last = jsPsych.data.get().filter({ phase: "practice" }).last(1).values()[0];
            return last.choice === trial.feedback
              ? '<p class="study-feedback">Correct.</p>'
              : '<p class="study-feedback">Not quite: the answer was “' + esc(trial.feedback) + '”.</p>';
          },
        });
      }
      let chosen = [];
      for (const trials of block.tasks) {
        const k = Math.min(S.per_participant || trials.length, trials.length);
        chosen = chosen.concat(jsPsych.randomization.sampleWithoutReplacement(trials, k));
      }
      for (const trial of jsPsych.randomization.shuffle(chosen.concat(block.catch))) {
        timeline.push(button(trial, "trial"));
      }
    }
    timeline.push({ type: jsPsychHtmlButtonResponse, stimulus: S.texts.end, choices: ["Finish"],
                    data: { phase: "end" } });
    jsPsych.run(timeline);

    function finish() {
      if (declined) {  // no data kept of one who did not consent; the declined text stays on the page
        document.body.dataset.done = "1";
        return;
      }
      const json = jsPsych.data.get().json();
      window.STUDY_RESULT = json;
      const name = "study-" + S.study + "-" + participant.replace(/[^A-Za-z0-9_-]/g, "_") + ".json";
      const hostSaves = typeof window.studySave === "function" ? window.studySave(json, participant) : null;
      const target = jsPsych.getDisplayElement();
      const code = completion ? '<p>Your completion code: <strong id="study-code">' + esc(completion) + '</strong></p>' : "";
      target.innerHTML = '<div class="study-done" id="study-done"><p>Thank you: you are done.</p>' + code +
        '<p><button class="jspsych-btn" id="study-save">Save my responses as a file</button></p></div>';
      document.getElementById("study-save").addEventListener("click", () => {
        const link = document.createElement("a");
        link.href = URL.createObjectURL(new Blob([json], { type: "application/json" }));
        link.download = name;
        document.body.appendChild(link);
        link.click();
        link.remove();
      });
      document.body.dataset.done = "1";
      Promise.resolve(hostSaves).then(() => {
        if (window.jatos) return jatos.submitResultData(json).then(() => jatos.endStudy(true));
        if (params.get("PROLIFIC_PID") && completion && S.prolific_return) {
          window.location.href = S.prolific_return + encodeURIComponent(completion);
        }
      });
    }
  }

  if (window.jatos) jatos.onLoad(run); else window.addEventListener("load", run);
})();
