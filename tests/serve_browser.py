#!/usr/bin/python3
"""Drives `sowzero serve` in headless Chromium: whole games of Kalah and of Mancala basico
(3 players) against `random` and `greedy`, and one of Congklak (relay sowing) against `random`, every board the page shows after a move checked against
`sowzero replay --json` of the moves so far, plus undo, hint, analysis and the replay of a downloaded
record; quick replay clicks during an animation (none lost), Hint and Analyse off after the game's end,
the footer naming the games served, and a phone-width (420 px) window without sideways scrolling;
screenshots go to OUT_DIR.

usage: serve_browser.py SOWZERO_BIN OUT_DIR     exit 0 ok, 1 failure, 77 skipped (no chromium/selenium)
Only 127.0.0.1 is contacted; every wait is bounded.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import time
import urllib.request

SKIP = 77
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError:
    print("skipped: python3-selenium is not installed")
    sys.exit(SKIP)

BIN, OUT = sys.argv[1], sys.argv[2]
CHROME = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
if not CHROME or not DRIVER:
    print("skipped: chromium / chromium-driver is not installed")
    sys.exit(SKIP)
os.makedirs(OUT, exist_ok=True)


def fail(msg):
    raise AssertionError(msg)


def replay_all(rules, moves):
    """The board after every prefix of `moves` (index i = after i moves), by one `sowzero replay --json`."""
    out = subprocess.run([BIN, "replay", "--rules", rules, "--json", *moves], capture_output=True, text=True,
                         timeout=60)
    if out.returncode:
        fail(f"sowzero replay {rules} {' '.join(moves)}: {out.stderr}")
    return [start_cells(rules)] + [p.split(" ")[0].split(",") for p in json.loads(out.stdout)["positions"]]


def verify(rules, seen):
    """Checks every observed (moves, cells) against replay: one replay call per line of play."""
    seen = sorted(seen, key=lambda e: -len(e[0]))
    lines = []   # (moves, boards)
    for mv, cells in seen:
        for line, boards in lines:
            if line[:len(mv)] == mv:
                break
        else:
            line, boards = mv, replay_all(rules, mv)
            lines.append((line, boards))
        if boards[len(mv)] != cells:
            fail(f"{rules}: after {' '.join(mv)} the page showed {cells}, replay gives {boards[len(mv)]}")
    return len(seen)


def start_cells(rules):
    out = subprocess.run([BIN, "perft", "1", "--rules", rules, "--json"], capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)["position"].split(" ")[0].split(",")


class Page:
    def __init__(self, driver, base):
        self.d, self.base = driver, base

    def js(self, code, *args):
        return self.d.execute_script(code, *args)

    def idle(self, timeout=60):
        """Waits (bounded) until the page is not busy; returns the turn."""
        end = time.time() + timeout
        while time.time() < end:
            if self.js("return document.body.dataset.busy") == "0":
                return self.js("return document.body.dataset.turn")
            time.sleep(0.02)
        fail("the page stayed busy for %d s: %s" % (timeout, self.d.find_element(By.ID, "banner").text))

    def cells(self):
        return self.js("return [...document.querySelectorAll('#board .pit')].map(p => p.dataset.count)")

    def moves(self):
        m = self.js("return document.getElementById('moves').dataset.moves")
        return m.split() if m else []

    def shown(self):
        return self.js("const s = window.sowzeroShown; window.sowzeroShown = []; return s")

    def legal(self):
        return self.d.find_elements(By.CSS_SELECTOR, "#board .pit.legal")


def check_shown(page, seen):
    for entry in page.shown():
        seen.append((entry["moves"].split(), entry["cells"]))


def play_game(page, rules, agent, side, rng, animate_moves=2, undo_at=None, shot=None):
    d = page.d
    Select(d.find_element(By.ID, "game")).select_by_value(rules)
    Select(d.find_element(By.ID, "agent")).select_by_value(agent)
    Select(d.find_element(By.ID, "side")).select_by_value(side)
    box = d.find_element(By.ID, "animate")
    if not box.is_selected():
        box.click()
    page.shown()
    d.find_element(By.ID, "new").click()
    seen, human_moves = [], 0   # (moves, cells shown): every board after a move, and the board at each turn
    for _ in range(2000):
        turn = page.idle()
        check_shown(page, seen)
        mv = page.moves()
        seen.append((mv, page.cells()))
        if turn == "over":
            break
        if turn != "human":
            fail(f"{rules}: idle page with turn '{turn}'")
        if undo_at is not None and human_moves == undo_at:
            before = mv
            d.find_element(By.ID, "undo").click()
            page.idle()
            after = page.moves()
            if len(after) >= len(before) or after != before[:len(after)]:
                fail(f"undo: moves {before} became {after}")
            seen.append((after, page.cells()))
            undo_at = None
            continue
        if human_moves == 1:
            d.find_element(By.ID, "hint").click()
            page.idle()
            hinted = d.find_elements(By.CSS_SELECTOR, "#board .pit.hint")
            if len(hinted) != 1 or "legal" not in hinted[0].get_attribute("class"):
                fail("hint: expected one highlighted legal pit")
        if human_moves == animate_moves:
            d.find_element(By.ID, "animate").click()   # the rest of the game without animation
        pits = page.legal()
        if not pits:
            fail(f"{rules}: human to move but no legal pit is clickable")
        rng.choice(pits).click()
        human_moves += 1
        if human_moves == 2 and animate_moves:
            d.find_element(By.ID, "skip").click()   # skips the rest of this turn's animations
        if shot and human_moves == 6:
            page.idle()
            d.save_screenshot(os.path.join(OUT, shot))
    else:
        fail("the game did not end in 2000 turns")
    status = d.find_element(By.ID, "status").text
    if "wins" not in status and "Draw" not in status and "Game over" not in status:
        fail(f"game over but the status says '{status}'")
    return verify(rules, seen), page.js("return document.body.dataset.session")


def check_replay(page, rules, session):
    """Loads the session's record through the page and steps through it, frame by frame."""
    d = page.d
    with urllib.request.urlopen(f"{page.base}api/record?session={session}", timeout=30) as r:
        record = r.read().decode()
    moves = []
    for line in record.split("\n"):
        if line and not line.startswith("["):
            moves += line.split()
    moves = moves[:-1]  # the result token
    area = d.find_element(By.ID, "record")
    area.clear()
    d.execute_script("arguments[0].value = arguments[1]", area, record)
    d.find_element(By.ID, "load").click()
    page.idle()
    boards = replay_all(rules, moves)
    for i in range(len(moves) + 1):
        at = d.find_element(By.ID, "step").get_attribute("data-at")
        if int(at) != i:
            fail(f"replay: at step {at}, expected {i}")
        if page.cells() != boards[i]:
            fail(f"replay step {i}: board {page.cells()}, replay gives {boards[i]}")
        if i < len(moves):
            d.find_element(By.ID, "next").click()
            page.idle()
    d.find_element(By.ID, "prev").click()
    page.idle()
    if page.cells() != boards[len(moves) - 1]:
        fail("replay: one step back does not show the previous board")
    return len(moves)


def quick_replay(page, rules):
    """Three ▶ clicks within a second, animation on: three steps, not one; then |◀ and ▶| jump."""
    d = page.d
    Select(d.find_element(By.ID, "game")).select_by_value(rules)
    box = d.find_element(By.ID, "animate")
    if not box.is_selected():
        box.click()
    moves = "c f B A e".split()
    area = d.find_element(By.ID, "record")
    area.clear()
    area.send_keys(" ".join(moves))
    d.find_element(By.ID, "load").click()
    page.idle()
    # Clicks 150 ms apart, timed by the page itself: inside the first step's animation (about 1 s of seeds)
    # however slowly the test machine drives the browser.
    page.js("const b = document.getElementById('next'); b.click();"
            "setTimeout(() => b.click(), 150); setTimeout(() => b.click(), 300);")
    time.sleep(0.5)
    page.idle()
    boards = replay_all(rules, moves)
    at = int(d.find_element(By.ID, "step").get_attribute("data-at"))
    if at != 3 or page.cells() != boards[3]:
        fail(f"three quick ▶ clicks: at step {at} showing {page.cells()}, expected step 3 {boards[3]}")
    d.find_element(By.ID, "last").click()
    d.find_element(By.ID, "next").click()   # past the end: stays at the end
    page.idle()
    if int(d.find_element(By.ID, "step").get_attribute("data-at")) != 5 or page.cells() != boards[5]:
        fail("▶| then ▶ does not rest on the last step")
    page.js("const b = document.getElementById('prev'); b.click(); setTimeout(() => b.click(), 100);")
    time.sleep(0.3)
    page.idle()
    if int(d.find_element(By.ID, "step").get_attribute("data-at")) != 3 or page.cells() != boards[3]:
        fail("two quick ◀ clicks from the end do not show step 3")
    d.find_element(By.ID, "back").click()


def check_over_controls(page):
    """After a game's end Hint and Analyse are off (with the reason as their tooltip), and no error shows."""
    d = page.d
    for id_ in ("hint", "analyse"):
        b = d.find_element(By.ID, id_)
        if b.is_enabled() or "over" not in (b.get_attribute("title") or ""):
            fail(f"{id_} after the game's end: enabled {b.is_enabled()}, title {b.get_attribute('title')!r}")
    b = d.find_element(By.ID, "analyse")
    d.execute_script("arguments[0].click()", b)   # a click on the disabled button does nothing
    page.idle()
    banner = d.find_element(By.ID, "banner").text
    if "Error" in banner:
        fail(f"after the game's end the page shows '{banner}'")


def phone_width(page, rules, shot):
    """At 420 px the board is scaled to fit: nothing scrolls sideways, every pit is inside the window."""
    d = page.d
    d.set_window_size(420, 900)
    try:
        Select(d.find_element(By.ID, "game")).select_by_value(rules)
        box = d.find_element(By.ID, "animate")
        if box.is_selected():
            box.click()
        d.find_element(By.ID, "new").click()
        page.idle()
        width = page.js("return document.documentElement.clientWidth")
        scroll = page.js("return document.documentElement.scrollWidth")
        if width > 420 or scroll > width:
            fail(f"{rules} at 420 px: the page is {scroll} px wide in a {width} px window")
        right = page.js("return Math.max(...[...document.querySelectorAll('#board .pit')]"
                        ".map(p => p.getBoundingClientRect().right))")
        left = page.js("return Math.min(...[...document.querySelectorAll('#board .pit')]"
                       ".map(p => p.getBoundingClientRect().left))")
        if left < 0 or right > width:
            fail(f"{rules} at 420 px: the pits span {left:.0f}..{right:.0f} px of {width}")
        pits = page.legal()
        if not pits:
            fail(f"{rules} at 420 px: no pit to play")
        before = len(page.moves())
        pits[0].click()   # the scaled board still takes clicks
        page.idle()
        if len(page.moves()) <= before:
            fail(f"{rules} at 420 px: a click on a pit played nothing")
        d.save_screenshot(os.path.join(OUT, shot))
    finally:
        d.set_window_size(1280, 900)


def main():
    srv = subprocess.Popen([BIN, "serve", "--port", "0", "--json", "--seed", "7", "--agent", "random=random",
                            "--agent", "greedy=greedy", "--threads", "2"], stdout=subprocess.PIPE, text=True)
    driver = None
    try:
        line = srv.stdout.readline()
        if not line:
            fail("sowzero serve did not start")
        base = json.loads(line)["url"]
        if not base.startswith("http://127.0.0.1:"):
            fail(f"not on loopback: {base}")
        opt = Options()
        opt.binary_location = CHROME
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1280,900", "--no-first-run", "--disable-extensions"):
            opt.add_argument(a)
        driver = webdriver.Chrome(service=Service(DRIVER), options=opt)
        driver.set_page_load_timeout(60)
        driver.set_script_timeout(60)
        driver.get(base)
        page = Page(driver, base)
        page.idle()
        rng = random.Random(19)
        kalah = "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"
        basico = "basico:players=3,pits=6,seeds=4,full_ranking=1"
        total = 0
        n, sess = play_game(page, kalah, "random", "first", rng, undo_at=3, shot="serve-kalah.png")
        total += n
        driver.save_screenshot(os.path.join(OUT, "serve-kalah-over.png"))
        steps = check_replay(page, kalah, sess)
        driver.save_screenshot(os.path.join(OUT, "serve-replay.png"))
        n, _ = play_game(page, kalah, "greedy", "second", rng, animate_moves=0)
        total += n
        check_over_controls(page)
        quick_replay(page, kalah)
        footer = driver.find_element(By.TAG_NAME, "footer").text
        if not all(g in footer for g in ("Kalah", "Congklak", "Oware", "Mancala básico")):
            fail(f"the footer does not name the games served: {footer!r}")
        phone_width(page, kalah, "serve-phone-kalah.png")
        phone_width(page, basico, "serve-phone-basico.png")
        n, sess_b = play_game(page, basico, "random", "first", rng, animate_moves=1, undo_at=2,
                              shot="serve-basico.png")
        total += n
        n, _ = play_game(page, basico, "greedy", "second", rng, animate_moves=0)
        total += n
        driver.save_screenshot(os.path.join(OUT, "serve-basico-over.png"))
        steps += check_replay(page, basico, sess_b)
        congklak = "congklak:pits=7,seeds=7,capture=opposite,end=either-empty,max_sows=0"
        n, _ = play_game(page, congklak, "random", "first", rng, animate_moves=1, shot="serve-congklak.png")
        total += n
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "409" not in e["message"]]
        if errors:
            fail(f"browser console errors: {errors}")
        print(f"ok: 5 games, {total} boards after moves checked against sowzero replay, {steps} replay steps, "
              "quick replay clicks, controls after the end, footer, phone width")
    finally:
        if driver:
            driver.quit()
        srv.terminate()
        try:
            rc = srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            fail("sowzero serve did not stop within 30 s of SIGTERM")
        if rc != 0:
            fail(f"sowzero serve exited {rc} on SIGTERM")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print("FAIL:", e)
        sys.exit(1)
