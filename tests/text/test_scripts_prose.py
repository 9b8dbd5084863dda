"""Prose in every script: sentence ends from Unicode's Sentence_Terminal characters, words of
scripts without spaces from their letters; and the same tests refuse menus and ``Key: value``
fields in each script. The samples are plain sentences written for these tests (one text, the
same three sentences, in each script)."""

from __future__ import annotations

import pytest

from wps.decide import DecisionRules, decide_segments
from wps.model import Segment
from wps.text.sentences import sentence_share, word_count

ENGLISH = ("The library in the town centre opened in 1952 and has been open every day since then. "
           "Readers come early in the morning to read quietly at the large tables in the hall. "
           "In summer, open lectures on the history of the district are held in the courtyard.")
PROSE = {
    "Latin": ENGLISH,
    "Cyrillic": "Библиотека в центре города открылась в 1952 году и с тех пор работает каждый "
                "день. Читатели приходят рано утром, чтобы спокойно читать за большими столами "
                "в зале. Летом во дворе проходят открытые лекции об истории района.",
    "Greek": "Η βιβλιοθήκη στο κέντρο της πόλης άνοιξε το 1952 και από τότε είναι ανοιχτή κάθε "
             "μέρα. Οι αναγνώστες έρχονται νωρίς το πρωί για να διαβάσουν ήσυχα στα μεγάλα "
             "τραπέζια της αίθουσας. Το καλοκαίρι γίνονται ανοιχτές διαλέξεις στην αυλή για την "
             "ιστορία της περιοχής.",
    "Arabic": "هل تعلم أن المكتبة في وسط المدينة افتتحت عام 1952 وأنها تفتح أبوابها كل يوم منذ "
              "ذلك الحين؟ هل رأيت القراء الذين يأتون في الصباح الباكر ليقرؤوا بهدوء على الطاولات "
              "الكبيرة في القاعة؟ هل حضرت المحاضرات المفتوحة عن تاريخ الحي التي تقام في الساحة "
              "كل صيف؟",
    "Hebrew": "הספרייה במרכז העיר נפתחה בשנת 1952 ומאז היא פתוחה בכל יום. הקוראים מגיעים מוקדם "
              "בבוקר כדי לקרוא בשקט ליד השולחנות הגדולים באולם. בקיץ מתקיימות בחצר הרצאות "
              "פתוחות על ההיסטוריה של השכונה.",
    "Devanagari": "शहर के बीच में स्थित पुस्तकालय वर्ष 1952 में खुला था और तब से हर दिन खुला "
                  "रहता है। पाठक सुबह जल्दी आते हैं ताकि बड़ी मेज़ों पर शांति से पढ़ सकें। गर्मियों "
                  "में आँगन में मोहल्ले के इतिहास पर खुले व्याख्यान होते हैं।",
    "Thai": "ห้องสมุดกลางเมืองเปิดให้บริการครั้งแรกในปี 1952 และเปิดทุกวันนับตั้งแต่นั้นมา "
            "ผู้อ่านมักมาถึงตั้งแต่เช้าเพื่อนั่งอ่านหนังสืออย่างเงียบสงบที่โต๊ะตัวใหญ่ในห้องโถง "
            "ในฤดูร้อนจะมีการบรรยายเกี่ยวกับประวัติศาสตร์ของย่านนี้ที่ลานด้านหลัง",
    "Han": "市中心的图书馆于一九五二年开放，从那以后每天都开门。读者们常常一大早就来，在大厅的大桌子旁"
           "安静地读书。夏天，院子里会举办关于这个街区历史的公开讲座。",
    "Kana": "町の中心にある図書館は一九五二年に開館し、それ以来毎日開いています。読者は朝早くから来て、"
            "ホールの大きな机で静かに本を読みます。夏には中庭でこの地域の歴史についての講演が開かれます。",
}
MENUS = {
    "Latin": "Home\nNews\nSport\nContact us\nLog in",
    "Cyrillic": "Главная\nНовости\nСпорт\nКонтакты\nВойти",
    "Greek": "Αρχική\nΕιδήσεις\nΑθλητικά\nΕπικοινωνία\nΣύνδεση",
    "Arabic": "الرئيسية\nالأخبار\nالرياضة\nاتصل بنا\nتسجيل الدخول",
    "Hebrew": "דף הבית\nחדשות\nספורט\nצור קשר\nהתחברות",
    "Devanagari": "मुखपृष्ठ\nसमाचार\nखेल\nसंपर्क करें\nलॉग इन",
    "Thai": "หน้าแรก ข่าว กีฬา บันเทิง ท่องเที่ยว ติดต่อเรา เข้าสู่ระบบ สมัครสมาชิก ค้นหา",
    "Han": "首页\n新闻\n体育\n联系我们\n登录",
    "Kana": "ホーム\nニュース\nスポーツ\nお問い合わせ\nログイン",
}
FIELDS = {
    "Latin": "Author: Anna Berg\nPages: 320\nPublished: 1952",
    "Cyrillic": "Автор: Анна Берг\nСтраниц: 320\nГод издания: 1952",
    "Greek": "Συγγραφέας: Άννα Μπεργκ\nΣελίδες: 320\nΈκδοση: 1952",
    "Arabic": "المؤلف: آنا برغ\nعدد الصفحات: 320\nسنة النشر: 1952",
    "Hebrew": "מחבר: אנה ברג\nעמודים: 320\nשנת הוצאה: 1952",
    "Devanagari": "लेखक: अन्ना बर्ग\nपृष्ठ: 320\nप्रकाशन वर्ष: 1952",
    "Thai": "ผู้เขียน: แอนนา เบิร์ก\nจำนวนหน้า: 320\nปีที่พิมพ์: 1952",
    "Han": "作者：安娜·伯格\n页数：320\n出版年份：1952",
    "Kana": "著者：アンナ・ベルク\nページ数：320\n発行年：1952",
}
SCRIPTS = sorted(PROSE)


@pytest.mark.parametrize("script", SCRIPTS)
def test_prose_is_sentences_in_every_script(script):
    assert sentence_share(PROSE[script]) >= 0.9


@pytest.mark.parametrize("script", SCRIPTS)
def test_menus_and_fields_are_not_sentences_in_any_script(script):
    assert sentence_share(MENUS[script]) == 0.0
    assert sentence_share(FIELDS[script]) == 0.0


@pytest.mark.parametrize("script", SCRIPTS)
def test_words_of_a_text_are_about_those_of_its_translation(script):
    """Scripts without spaces count words from their letters: the same three sentences have
    about as many words in every script."""
    english = word_count(ENGLISH)
    assert 0.6 * english <= word_count(PROSE[script]) <= 1.5 * english


def _decided(capture, text: str) -> Segment:
    node_ids = [node.id for node in capture.nodes]
    segment = Segment.from_box("s", (0, 0, 1000, 200), node_ids)
    segment.text = segment.main_text = text
    decide_segments(capture, [segment], DecisionRules.from_config())
    return segment


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_decision_keeps_prose_and_drops_menus_in_every_script(make_capture, script):
    prose = _decided(make_capture(("BODY", [("P", [PROSE[script]])])), PROSE[script])
    menu = _decided(make_capture(("BODY", [("UL", [("LI", [line])
                                                  for line in MENUS[script].splitlines()])])),
                    MENUS[script])
    assert prose.kept and prose.kind == "prose"
    assert not menu.kept and "not_prose" in menu.reasons
