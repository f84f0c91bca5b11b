/* uno-web: the play page. It draws what the server sends (GET /api/state: the seat's table_view, its legal
 * actions, the narration) and sends the id of the action clicked (POST /api/act); the server decides everything.
 * Cards and the table are drawn by the shared UnoTable (uno_env/static/table.js). Text goes on the page with
 * textContent only. Every POST carries the page's token (the meta uno-token the server put in the page) in the
 * X-Uno-Token header, and an action names its game (the server refuses one meant for another game). */
(function () {
  "use strict";

  var token = (document.querySelector('meta[name="uno-token"]') || {}).content || "";
  var current = null;
  var busy = false;
  var rendered = 0;

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function request(method, url, body) {
    var init = { method: method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (method !== "GET") init.headers["X-Uno-Token"] = token;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (response) {
      return response.json().then(
        function (data) {
          if (!response.ok) throw new Error(data.error || response.status + " " + response.statusText);
          return data;
        },
        function () {
          throw new Error(response.status + " " + response.statusText);
        }
      );
    });
  }

  function showError(error) {
    var box = $("error");
    box.textContent = error ? String(error.message || error) : "";
    box.hidden = !error;
  }

  function setBusy(value) {
    busy = value;
    var buttons = document.querySelectorAll("#actions button, #hand .web-playable, #new-game, #start");
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = value;
  }

  function send(method, url, body) {
    if (busy) return;
    setBusy(true);
    request(method, url, body)
      .then(function (state) {
        showError(null);
        render(state);
      })
      .catch(showError)
      .then(function () {
        setBusy(false);
      });
  }

  function act(id) {
    send("POST", "/api/act", { action: id, game: current ? current.game.number : null });
  }

  function colorOfAction(name) {
    var match = /^color (\w+)$/.exec(name);
    return match ? match[1] : null;
  }

  function title(state) {
    var g = state.game;
    var text = "UNO " + g.variant + " \u00b7 " + g.players + " players \u00b7 " +
      (g.episode === "match" ? "a match to " + g.target_score : "a round") + " \u00b7 game " + g.number;
    if (g.options.length) text += " \u00b7 " + g.options.join(", ");
    return text;
  }

  function renderActions(state) {
    var box = $("actions");
    box.textContent = "";
    state.actions.forEach(function (action) {
      var button = el("button", "web-action");
      button.type = "button";
      button.setAttribute("data-action-id", String(action.id));
      button.setAttribute("data-action", action.name);
      button.title = action.label + " (action " + action.id + ")";
      var color = colorOfAction(action.name);
      if (color) {
        button.appendChild(UnoTable.chip(color));
      } else if (/^play /.test(action.name)) {
        button.appendChild(UnoTable.card(action.name.slice(5), state.colors, { size: "small" }));
      }
      button.appendChild(el("span", "web-action-name", action.name));
      if (action.label && action.label !== action.name) button.appendChild(el("span", "web-action-label", action.label));
      button.addEventListener("click", function () {
        act(action.id);
      });
      box.appendChild(button);
    });
  }

  function renderHand(state) {
    var box = $("hand");
    box.textContent = "";
    var me = state.view.seats[state.view.viewer];
    var playable = {};
    state.actions.forEach(function (action) {
      if (/^play /.test(action.name)) playable[action.name.slice(5)] = action.id;
    });
    box.classList.toggle("web-choosing", Object.keys(playable).length > 0);
    if (!me.hand.length) box.appendChild(el("span", "web-hint", "no cards"));
    me.hand.forEach(function (code) {
      var face = UnoTable.card(code, state.colors, { size: "large" });
      if (Object.prototype.hasOwnProperty.call(playable, code)) {
        var wrap = el("button", "web-playable");
        wrap.type = "button";
        wrap.title = "play " + code;
        wrap.appendChild(face);
        wrap.addEventListener("click", function () {
          act(playable[code]);
        });
        box.appendChild(wrap);
      } else {
        box.appendChild(face);
      }
    });
    if (me.foreheads.length) {
      var fore = el("span", "web-foreheads", "your forehead ");
      me.foreheads.forEach(function (code) {
        fore.appendChild(code === null ? UnoTable.back(state.colors, { mark: "?", size: "small" })
          : UnoTable.card(code, state.colors, { size: "small" }));
      });
      box.appendChild(fore);
    }
  }

  function renderLog(state) {
    var list = $("log");
    list.textContent = "";
    state.log.forEach(function (line) {
      list.appendChild(el("li", "", line));
    });
    list.scrollTop = list.scrollHeight;
  }

  function renderSettings(state) {
    if (current && current.game.number === state.game.number && $("set-variant").options.length) return;
    var g = state.game;
    var variant = $("set-variant");
    variant.textContent = "";
    state.variants.forEach(function (name) {
      var option = el("option", "", name);
      option.value = name;
      variant.appendChild(option);
    });
    variant.value = g.variant;
    $("set-players").value = g.players;
    $("set-seat").value = g.seat;
    $("set-episode").value = g.episode;
    $("set-opponents").value = g.opponents.join(" ");
    $("set-options").value = g.options.join(" ");
    $("agents-hint").textContent = "The page seats " + state.agents.join(", ") +
      "; trained agents are named on the command line (uno-web --opponents ppo:classic).";
  }

  function render(state) {
    var view = state.view;
    document.title = view.done ? "UNO \u00b7 game over" : state.actions.length ? "UNO \u00b7 your turn" : "UNO";
    $("title").textContent = title(state);
    var result = $("result");
    result.hidden = !(state.result || state.problem);
    result.textContent = state.problem || ((state.result || "") + (state.game.seed !== null ? " (seed " + state.game.seed + ")" : ""));
    $("save").hidden = !state.record;
    $("open-record").hidden = !state.replay;
    var prompt = $("prompt");
    if (view.done) prompt.textContent = "The game is over. Start a new game, or save this one as a record.";
    else if (state.actions.length) prompt.textContent = state.prompt;
    else prompt.textContent = "Waiting for " + state.names[view.deciding] + ".";
    renderActions(state);
    renderHand(state);
    var board = $("board");
    board.textContent = "";
    var labelled = JSON.parse(JSON.stringify(view)); // the seats named as the narration names them
    labelled.seats.forEach(function (seat) {
      seat.name = state.names[seat.seat];
    });
    board.appendChild(UnoTable.table(labelled, state.colors, { seats: [] }));
    renderLog(state);
    renderSettings(state);
    current = state;
    rendered += 1;
    document.body.setAttribute("data-rendered", String(rendered));
    document.body.setAttribute("data-done", view.done ? "true" : "false");
  }

  function settingsFromForm() {
    return {
      variant: $("set-variant").value,
      players: parseInt($("set-players").value, 10),
      seat: parseInt($("set-seat").value, 10),
      episode: $("set-episode").value,
      opponents: $("set-opponents").value.split(/\s+/).filter(Boolean),
      options: $("set-options").value.split(/\s+/).filter(Boolean),
    };
  }

  $("new-game").addEventListener("click", function () {
    send("POST", "/api/new");
  });
  $("settings").addEventListener("submit", function (event) {
    event.preventDefault();
    send("POST", "/api/new", settingsFromForm());
  });

  if (typeof UnoTable === "undefined") {
    showError("The card drawing (uno_env/static/table.js) did not load.");
    return;
  }
  request("GET", "/api/state").then(render).catch(showError);
})();
