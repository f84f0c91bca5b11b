"""Saves never replace what is not a regular file (issue 35): a FIFO or a character device (or a link to one) is
written in place, a folder, a socket or a FIFO nobody reads is refused in one line, and the thing is left as it
was."""

from __future__ import annotations

import os
import socket
import stat
import threading
import time

import numpy as np
import pytest

from uno_env import Game
from uno_env import picture as P
from uno_env.records import save_record, write_atomic


def test_a_fifo_is_written_in_place_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    received: list[bytes] = []
    opened = threading.Event()

    def read():
        with open(fifo, "rb") as reader:
            opened.set()
            received.append(reader.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 5
    while not opened.is_set():  # the writer opens without blocking: the reader must be there first
        assert time.monotonic() < deadline
        try:
            write_atomic(fifo, "hello")
            break
        except OSError as error:
            assert "no program is reading" in error.strerror
            time.sleep(0.01)
    reader.join(5)
    assert received == [b"hello"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.listdir(tmp_path) == ["game.json"]


def test_a_fifo_nobody_reads_is_refused_at_once_and_kept(tmp_path):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    record = Game("classic", 2, seed=1).to_record()
    started = time.monotonic()
    with pytest.raises(OSError) as refused:
        save_record(record, fifo)
    assert time.monotonic() - started < 2
    assert refused.value.strerror == "is a FIFO that no program is reading: start its reader first"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.listdir(tmp_path) == ["game.json"]


@pytest.mark.parametrize("writer", ["text", "picture"])
def test_a_link_to_dev_null_is_written_through_and_both_are_kept(tmp_path, writer):
    link = tmp_path / "out.gif"
    link.symlink_to(os.devnull)
    before = os.stat(os.devnull)
    if writer == "text":
        write_atomic(link, "anything")
    else:  # a writer that needs a path of its own (Pillow, torch.save, matplotlib)
        P.save_animation([np.zeros((4, 4, 3), np.uint8)] * 2, link)
    after = os.stat(os.devnull)
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert os.listdir(tmp_path) == ["out.gif"]  # no temporary file left


def test_a_folder_is_refused_in_one_line_and_left_as_it_was(tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "kept.json").write_text("{}")
    with pytest.raises(IsADirectoryError) as refused:
        write_atomic(folder, "data")
    assert refused.value.strerror == "is a folder: name a file to save to"
    assert os.listdir(folder) == ["kept.json"] and os.listdir(tmp_path) == ["games"]


def test_a_socket_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OSError) as refused:
            write_atomic(path, "data")
        assert "is neither a regular file, a FIFO nor a character device" in refused.value.strerror
        assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_uno_play_saves_to_dev_null_and_refuses_a_folder(tmp_path, capsys):
    from rich.console import Console

    from uno_env.play.terminal import main

    def quit_at_once(prompt=""):
        return "q"

    link = tmp_path / "null.json"
    link.symlink_to(os.devnull)
    console = Console(file=open(os.devnull, "w"), width=120)  # noqa: SIM115 (closed with the test)
    assert main(["--seed", "1", "--save", str(link)], input_fn=quit_at_once, console=console) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode) and link.is_symlink()
    with pytest.raises(SystemExit) as stop:
        main(["--seed", "1", "--save", str(tmp_path)], input_fn=quit_at_once, console=console)
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("uno-play: error: --save must be a file in an existing folder, got")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null.json"]
    console.file.close()
