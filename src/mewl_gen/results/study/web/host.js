// Where a host keeps a participant's data: edit this file, not study.js.
//
// At the end of the experiment, study.js calls window.studySave(json, participant) when it is defined
// (json: jsPsych's data as text), and waits for the promise it returns. JATOS needs nothing here: where
// jatos.js is loaded (JATOS serves it), the data go to JATOS and the study ends there. Every participant
// may also save their data as a file from the last page.
//
// A server of your own (Pavlovia, a lab server) that takes the data by POST:
//
// window.studySave = function (json, participant) {
//   return fetch("https://example.org/save?participant=" + encodeURIComponent(participant),
//                { method: "POST", headers: { "Content-Type": "application/json" }, body: json });
// };
