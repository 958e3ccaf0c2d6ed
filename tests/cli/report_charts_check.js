// Inlined at the end of a copy of report.html by report_charts_check.py, run by headless Chromium
// (--dump-dom): measures what the browser drew and leaves its findings as JSON in <pre id="check">.
(function () {
  const out = {problems: [], charts: 0, tallest: 0, closedHeight: 0, pageWidth: 0, viewWidth: 0, sweeps: []};
  const say = (s) => { if (out.problems.length < 40) out.problems.push(s); };
  const name = (svg) => (svg.getAttribute("aria-label") || "").slice(0, 90);
  // the page as it first shows, before the folded parts are opened
  out.closedHeight = document.documentElement.scrollHeight;
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  out.pageWidth = document.documentElement.scrollWidth;
  out.viewWidth = document.documentElement.clientWidth;
  if (out.pageWidth > out.viewWidth) say(`the page is ${out.pageWidth} px wide in a ${out.viewWidth} px window`);
  for (const svg of document.querySelectorAll("svg")) {
    out.charts++;
    const box = svg.getBoundingClientRect();
    out.tallest = Math.max(out.tallest, box.height);
    if (box.right > out.viewWidth + 0.5) say(`${name(svg)}: ends at x=${box.right} past the window`);
    const texts = [...svg.querySelectorAll("text")].map((t) => [t, t.getBoundingClientRect()]);
    // the title (the first text) whole: a chart grows to its title, up to the page's width
    if (texts.length && texts[0][0].querySelector("title")) say(`${name(svg)}: its title is cut`);
    for (const [t, b] of texts) {
      if (b.left < box.left - 0.5 || b.right > box.right + 0.5 || b.top < box.top - 0.5 || b.bottom > box.bottom + 0.5)
        say(`${name(svg)}: text "${t.textContent}" [${b.left|0},${b.top|0} - ${b.right|0},${b.bottom|0}] leaves ` +
            `its chart [${box.left|0},${box.top|0} - ${box.right|0},${box.bottom|0}]`);
    }
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i][1], b = texts[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1)
          say(`${name(svg)}: "${texts[i][0].textContent}" overlaps "${texts[j][0].textContent}"`);
      }
    if (!name(svg).startsWith("row-length sweep")) continue;
    // a sweep: each line's look (colour and dash) its own, the copy's red among them
    const looks = [...svg.querySelectorAll("polyline")].map(
        (p) => `${p.getAttribute("stroke")} ${p.getAttribute("stroke-dasharray") || ""}`);
    out.sweeps.push({name: name(svg), lines: looks.length, looks: new Set(looks).size,
                     copy: looks.some((l) => l.startsWith("#d00000")),
                     note: [...svg.querySelectorAll("text")].map((t) => t.textContent).filter((s) => s.includes("not drawn")),
                     top: box.top + window.scrollY, left: box.left, width: box.width, height: box.height});
  }
  const pre = document.createElement("pre");
  pre.id = "check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
