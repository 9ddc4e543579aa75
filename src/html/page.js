// Filters the findings by severity and resource kind, on the page alone (no
// server): the boxes that are ticked, or the address's `#severity=…&kind=…`.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  var findings = document.querySelectorAll("li.finding");
  var groups = document.querySelectorAll("section.rule");
  var shown = document.getElementById("shown");
  function ticked(name) {
    var values = {};
    var boxes = form.querySelectorAll("input[name='" + name + "']");
    for (var i = 0; i < boxes.length; i++) { if (boxes[i].checked) { values[boxes[i].value] = true; } }
    return values;
  }
  function apply() {
    var severities = ticked("severity"), kinds = ticked("kind"), visible = 0;
    for (var i = 0; i < findings.length; i++) {
      var f = findings[i];
      var show = severities[f.getAttribute("data-severity")] === true && kinds[f.getAttribute("data-kind")] === true;
      // Written only when it changes: an untouched element costs no style work.
      if (f.hidden === show) { f.hidden = !show; }
      if (show) { visible++; }
    }
    for (var j = 0; j < groups.length; j++) {
      var g = groups[j];
      var empty = g.querySelector("li.finding:not([hidden])") === null && g.querySelector("li.finding") !== null;
      if (g.hidden !== empty) { g.hidden = empty; }
    }
    if (shown) { shown.textContent = visible + " of " + findings.length + " listed findings shown"; }
  }
  // `#severity=error,warning&kind=pool`: only those ticked (a link to a
  // filtered view; read on load and whenever the address's fragment changes).
  function fromHash() {
    var wanted = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2 && (kv[0] === "severity" || kv[0] === "kind")) {
        wanted[kv[0]] = decodeURIComponent(kv[1]).split(",");
      }
    });
    ["severity", "kind"].forEach(function (name) {
      var boxes = form.querySelectorAll("input[name='" + name + "']");
      for (var i = 0; i < boxes.length; i++) { boxes[i].checked = !wanted[name] || wanted[name].indexOf(boxes[i].value) >= 0; }
    });
    apply();
  }
  window.addEventListener("hashchange", fromHash);
  form.addEventListener("change", apply);
  form.hidden = false;
  fromHash();
})();
