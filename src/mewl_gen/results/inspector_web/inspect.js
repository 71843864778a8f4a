// The inspector's page (mewl gallery, mewl inspect --html): layers switched on and off, objects picked
// through their masks on the image or on the map, the answer shown on request. Plain script, no library;
// every text of the dataset is set as text, never as markup.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("inspector-data").textContent);
  const body = document.body;
  const sections = [...document.querySelectorAll("section.scene")];
  let current = 0;
  let selected = null;

  // Each scene's pixels -> the object whose mask holds it (-1: none), from the masks' run lengths
  // (COCO's: column by column, the first run background).
  const owners = data.scenes.map((scene) => {
    const owner = new Int16Array(scene.width * scene.height).fill(-1);
    for (const obj of scene.objects) {
      let at = 0;
      obj.mask.forEach((run, k) => {
        if (k % 2 === 1) {
          for (let i = at; i < at + run && i < owner.length; i++) {
            owner[(i % scene.height) * scene.width + Math.floor(i / scene.height)] = obj.index;
          }
        }
        at += run;
      });
    }
    return owner;
  });

  const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));

  function drawMasks(k) {
    const scene = data.scenes[k];
    const canvas = sections[k].querySelector("canvas.masks");
    const shown = new Set([...sections[k].querySelectorAll("table.objects tr[data-index]")]
      .filter((row) => row.querySelector("input.mask-toggle").checked).map((row) => Number(row.dataset.index)));
    const image = canvas.getContext("2d").createImageData(scene.width, scene.height);
    const colors = new Map(scene.objects.map((o) => [o.index, rgb(o.color_key)]));
    owners[k].forEach((who, p) => {
      if (who < 0 || !shown.has(who)) return;
      const [r, g, b] = colors.get(who);
      image.data.set([r, g, b, who === selected ? 210 : 120], p * 4);
    });
    canvas.getContext("2d").putImageData(image, 0, 0);
  }

  function show(obj) {
    document.querySelector("#info p.none").hidden = obj !== null;
    for (const dd of document.querySelectorAll("#info dd[data-field]")) {
      const value = obj === null ? undefined : obj[dd.dataset.field];
      dd.textContent = value === undefined || value === "" ? "—"
        : dd.dataset.field === "index" ? `#${value}` : Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
    }
  }

  function select(index) {
    selected = index;
    const section = sections[current];
    for (const el of section.querySelectorAll("[data-index]")) {
      el.classList.toggle("selected", Number(el.dataset.index) === index);
    }
    // A map object the image's truth does not list (the page's problem line says why) shows as none.
    show(index === null ? null : data.scenes[current].objects.find((o) => o.index === index) ?? null);
    drawMasks(current);
  }

  function objectAt(view, event) {
    const box = view.getBoundingClientRect();
    const scene = data.scenes[current];
    const x = Math.floor((event.clientX - box.left) / box.width * scene.width);
    const y = Math.floor((event.clientY - box.top) / box.height * scene.height);
    if (x < 0 || y < 0 || x >= scene.width || y >= scene.height) return -1;
    return owners[current][y * scene.width + x];
  }

  function showScene(k) {
    current = k;
    sections.forEach((s, i) => { s.hidden = i !== k; });
    document.querySelectorAll("nav.scenes button").forEach((b, i) => b.classList.toggle("here", i === k));
    select(null);
  }

  document.querySelectorAll("nav.scenes button").forEach((b) => b.addEventListener("click",
    () => showScene(Number(b.dataset.scene))));
  for (const box of document.querySelectorAll("#layers input[data-layer]")) {
    const apply = () => body.classList.toggle(`no-${box.dataset.layer}`, !box.checked);
    box.addEventListener("change", apply);
    apply();
  }
  const answer = document.getElementById("show-answer");
  const reveal = () => body.classList.toggle("answer-shown", answer.checked);
  answer.addEventListener("change", reveal);
  reveal();
  sections.forEach((section, k) => {
    const view = section.querySelector(".view");
    const hover = section.querySelector(".hover");
    view.addEventListener("click", (event) => {
      const who = objectAt(view, event);
      select(who < 0 ? null : who);
    });
    view.addEventListener("mousemove", (event) => {
      const who = objectAt(view, event);
      const obj = data.scenes[k].objects.find((o) => o.index === who);
      hover.textContent = obj ? `#${obj.index} ${obj.description}` : "";
    });
    for (const el of section.querySelectorAll("svg.map .obj, table.objects tr[data-index]")) {
      el.addEventListener("click", (event) => {
        if (event.target.classList.contains("mask-toggle")) return;
        select(Number(el.dataset.index));
      });
    }
    for (const toggle of section.querySelectorAll("input.mask-toggle")) {
      toggle.addEventListener("change", () => drawMasks(k));
    }
    drawMasks(k);
  });
})();
