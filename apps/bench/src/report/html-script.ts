/**
 * The HTML report's scripts (inlined; plain ES2019 for any current browser).
 *
 * {@link ERROR_HOOK_JS} runs first, in `<head>`: every uncaught error, rejected promise and
 * `console.error`/`console.warn` is counted in `<html data-errors>` and shown in the `#errors`
 * box, so a broken page says so (and the report's browser test can read it from the DOM).
 * {@link REPORT_JS} runs last: sortable and filterable tables, and the charts drawn with
 * Chart.js from the `#chart-data` JSON. When it is done it sets `<body data-ready="1"
 * data-charts="N">`.
 */
export const ERROR_HOOK_JS = `(function () {
  var errors = [];
  function show() {
    var box = document.getElementById("errors");
    if (!box || errors.length === 0) return;
    box.hidden = false;
    box.textContent = "This page's script reported " + errors.length + " problem(s):\\n" + errors.join("\\n");
  }
  function record(what) {
    errors.push(String(what));
    document.documentElement.setAttribute("data-errors", String(errors.length));
    show();
  }
  window.addEventListener("error", function (e) { record(e.message || e); });
  window.addEventListener("unhandledrejection", function (e) { record(e.reason); });
  ["error", "warn"].forEach(function (level) {
    var original = console[level].bind(console);
    console[level] = function () {
      record(level + ": " + Array.prototype.join.call(arguments, " "));
      original.apply(null, arguments);
    };
  });
  document.addEventListener("DOMContentLoaded", show);
})();`;

/** Tables, filters and charts; see the file's comment. */
export const REPORT_JS = `(function () {
  function sig(v) { return v.toPrecision(3); }
  var fmt = {
    ns: function (v) {
      if (v < 999.5) return Math.round(v) + " ns";
      if (v < 999500) return sig(v / 1e3) + " µs";
      if (v < 999500000) return sig(v / 1e6) + " ms";
      return sig(v / 1e9) + " s";
    },
    count: function (v) {
      if (v < 999.5) return Number.isInteger(v) ? String(v) : sig(v);
      if (v < 999500) return sig(v / 1e3) + " k";
      if (v < 999500000) return sig(v / 1e6) + " M";
      return sig(v / 1e9) + " G";
    },
    us: function (v) { return fmt.ns(v * 1000); },
    mbs: function (v) { return (v >= 999.5 ? Math.round(v) : sig(v)) + " MB/s"; },
  };
  function show(unit, v) { return v === null || v === undefined ? "—" : fmt[unit](v); }

  // Sortable tables: click a header; numbers sort by the value behind the cell (data-v).
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[col];
          if (!cell) return null;
          var v = cell.getAttribute("data-v");
          return v === null ? cell.textContent : Number(v);
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (x === y) return 0;
          if (x === null || x === "") return 1;
          if (y === null || y === "") return -1;
          if (typeof x === "number" && typeof y === "number") return (x - y) * dir;
          return String(x).localeCompare(String(y), undefined, { numeric: true }) * dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });

  // Filters: every word must occur in the row's first cell (the case id).
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    var count = document.getElementById(input.getAttribute("data-filter") + "-count");
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var id = row.cells[0].textContent.toLowerCase();
        var hit = words.every(function (w) { return id.indexOf(w) >= 0; });
        row.hidden = !hit;
        if (hit) shown++;
      });
      if (count) count.textContent = shown + " of " + table.tBodies[0].rows.length + " rows";
    });
  });

  // Charts.
  var drawn = 0;
  var data = JSON.parse(document.getElementById("chart-data").textContent);
  if (data.length > 0 && typeof Chart === "undefined") throw new Error("Chart.js is missing from the page");
  data.forEach(function (group) {
    group.charts.forEach(function (spec) {
      var card = document.querySelector('[data-chart="' + spec.id + '"]');
      if (!card) return;
      var canvas = card.querySelector("canvas");
      var log = spec.log;
      var values = [];
      spec.datasets.forEach(function (d) { d.data.forEach(function (v) { if (v !== null && v > 0) values.push(v); }); });
      // A log axis starts a decade below the smallest bar, so every bar stays visible.
      var logMin = values.length ? Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, values) / 2))) : 1;
      var chart = new Chart(canvas, {
        type: "bar",
        data: {
          labels: spec.labels,
          datasets: spec.datasets.map(function (d) {
            return { label: d.label, data: d.data, backgroundColor: d.color, borderWidth: 0, skipNull: true, extra: d.extra };
          }),
        },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          plugins: {
            title: { display: true, text: spec.title, font: { size: 13 } },
            legend: { position: "bottom", labels: { boxWidth: 10, boxHeight: 10, font: { size: 11 } } },
            tooltip: {
              callbacks: {
                label: function (ctx) {
                  var e = ctx.dataset.extra;
                  var extra = e ? " · " + e.name + " " + show(e.unit, e.data[ctx.dataIndex]) : "";
                  return ctx.dataset.label + ": " + show(spec.unit, ctx.raw) + extra;
                },
              },
            },
          },
          scales: {
            x: { ticks: { autoSkip: false, maxRotation: 50, font: { size: 11 } } },
            y: scale(log),
          },
        },
      });
      function scale(isLog) {
        return {
          type: isLog ? "logarithmic" : "linear",
          min: isLog ? logMin : undefined,
          beginAtZero: !isLog,
          title: { display: true, text: spec.axis + (isLog ? " (log scale)" : ""), font: { size: 11 } },
          ticks: {
            font: { size: 11 },
            callback: function (v) {
              if (isLog) {
                var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
                if (!(Math.abs(m - 1) < 1e-6 || Math.abs(m - 2) < 1e-6 || Math.abs(m - 5) < 1e-6)) return "";
              }
              return fmt[spec.unit](v);
            },
          },
        };
      }
      var button = card.querySelector("button");
      function label() { button.textContent = log ? "switch to linear" : "switch to log"; }
      label();
      button.addEventListener("click", function () {
        log = !log;
        chart.options.scales.y = scale(log);
        chart.update();
        label();
      });
      drawn++;
    });
  });
  document.body.setAttribute("data-charts", String(drawn));
  document.body.setAttribute("data-ready", "1");
})();`;
