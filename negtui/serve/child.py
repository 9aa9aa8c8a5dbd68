"""The training app for one connection: `python -m negtui.serve.child`, started by the server on the SSH
connection's pseudo-terminal (or, `--web`, on pipes speaking Textual's web protocol to a browser) with the
trainee's name, the course and the data directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="negtui-serve-child")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--course", type=Path, required=True)
    parser.add_argument("--trainee", required=True)
    parser.add_argument("--session", type=int, default=None)
    parser.add_argument("--enrol-key", default=None)
    parser.add_argument("--hub", default=None)  # the server's socket: tables are asked for there
    parser.add_argument("--idle-timeout", type=float, default=None)  # seconds; assessments left longer are abandoned
    parser.add_argument("--trainer", action="store_true")  # a trainer account: the console, not the lobby
    parser.add_argument("--web", action="store_true")  # Textual's web protocol on stdin and stdout (web.py)
    args = parser.parse_args(argv)
    from negtui.classroom.course_loading import CourseError, load_course
    from negtui.classroom.db import ResultsDB

    try:
        course = load_course(args.course, kept=True)
    except CourseError as err:
        print(err.render(), file=sys.stderr)
        return 2
    with ResultsDB.open(args.data_dir) as db:
        # the console only for a key bound to the trainer: a key being enrolled (anyone's, while an invite is
        # pending) proves the code on the enrolment screen first, and the console comes with the next login
        if args.trainer and args.enrol_key is None:
            from negtui.console.app import ServedClassApp

            console = ServedClassApp(course, db, data_dir=args.data_dir, session_id=args.session)
            console.run()
            return console.return_code or 0
        from negtui.trainee.training import TrainingApp

        app = TrainingApp(course, db, args.trainee, data_dir=args.data_dir, session_id=args.session,
                          enrol_key=args.enrol_key, hub=args.hub, idle_timeout=args.idle_timeout)
        if args.web:  # the driver Textual would pick from TEXTUAL_DRIVER, which a forked app was started without
            from textual.drivers.web_driver import WebDriver

            app.driver_class = WebDriver
        app.run()
        return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
